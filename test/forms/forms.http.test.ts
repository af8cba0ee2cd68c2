import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObject, call, data, expectErrorBody } from '../schema/schema-fixtures.js';
import { createForm, leadSchema, threeStepForm } from './form-fixtures.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { formsProjection, formSubmissionsProjection } from '../../projections/forms.projection.js';

let t: TestApp;
let owner: TestTenant;
let other: TestTenant;
let schema: Awaited<ReturnType<typeof leadSchema>>;
beforeAll(async () => {
  // Caches kept a minute: a change a submission must see is forgotten by the append, not by time.
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', FORMS_RATE_LIMIT_MAX: '6', SCHEMA_CACHE_MS: '60000' });
  owner = await signUpWithCompany(t.app);
  other = await signUpWithCompany(t.app);
  schema = await leadSchema(t.app, owner);
});
afterAll(async () => t.close());

const submitUrl = (company: string, form: string, step?: number) => `/api/v2/forms/public/${company}/${form}/submit${step === undefined ? '' : `?step=${step}`}`;
const submit = (company: string, form: string, payload: unknown, step?: number, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: submitUrl(company, form, step), payload: payload as object, headers: { 'user-agent': 'vitest-visitor/1.0', ...headers } }).then((r) => ({ status: r.statusCode, body: r.json() }));
const recordCount = async (tenant: string) => Number((await t.platform.db.query<{ n: number }>('select count(*)::int as n from records where tenant = $1 and is_primary', [tenant]))[0]!.n);
const linkCount = async (tenant: string) => Number((await t.platform.db.query<{ n: number }>('select count(*)::int as n from rm_record_links where tenant = $1 and connected', [tenant]))[0]!.n);

const goodAnswers = {
  answers: { name: 'Ada', email: 'ada@corp.example', budget: 5000, country: 'NL' },
  inner: { contacts: [{ fullname: 'Grace Hopper', phone: '+31 6 1234' }, { fullname: 'Alan Turing' }] },
};

describe('form definitions', () => {
  it('creates, reads, lists per object and company, updates, deletes and restores with its layout', async () => {
    const form = await createForm(t.app, owner, threeStepForm(schema, { published: false }));
    expect(form).toMatchObject({ name: 'lead-wizard', objectUuid: schema.lead.uuid, objectName: schema.lead.name, style: 'underline', published: false, revision: 0 });
    expect(form.items).toHaveLength(6);
    expect(form.items[5]).toMatchObject({ kind: 'innerForm', objectUuid: schema.contact.uuid, side: 'origin', maxEntries: 3, minEntries: 0 });
    expect(await data(t.app, owner, 'GET', `/api/v2/forms/${form.uuid}`)).toEqual(form);
    const byObject = await call(t.app, owner, 'POST', `/api/v2/forms/${schema.lead.uuid}/index`, {});
    expect(byObject.body.data.map((f: { uuid: string }) => f.uuid)).toContain(form.uuid);
    const unrelated = await anObject(t.app, owner);
    expect((await call(t.app, owner, 'POST', `/api/v2/forms/${unrelated.uuid}/index`, {})).body.total).toBe(0);
    expect((await call(t.app, owner, 'POST', '/api/v2/forms/index', {})).body.data.map((f: { uuid: string }) => f.uuid)).toContain(form.uuid);

    const updated = await data(t.app, owner, 'PUT', `/api/v2/forms/${form.uuid}`, { label: 'Renamed', published: true });
    expect(updated).toMatchObject({ label: 'Renamed', published: true, revision: 1, items: form.items, steps: form.steps });

    const deleted = await call(t.app, owner, 'DELETE', `/api/v2/forms/${form.uuid}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.deletedAt).toEqual(expect.any(Number));
    expect((await call(t.app, owner, 'GET', `/api/v2/forms/${form.uuid}`)).status).toBe(404);
    // A deleted form is not public.
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/forms/public/${owner.companyUuid}/${form.uuid}` })).statusCode).toBe(404);
    const restored = await data(t.app, owner, 'POST', `/api/v2/forms/${form.uuid}/restore`);
    expect(restored).toMatchObject({ uuid: form.uuid, deletedAt: null, label: 'Renamed', items: form.items, steps: form.steps, scoring: form.scoring });
    // Restoring a live form: 409 with the error body, as records, saved filters and menus answer (issue 32, item 4).
    const again = await call(t.app, owner, 'POST', `/api/v2/forms/${form.uuid}/restore`);
    expectErrorBody(again, 409, 'GENERAL');
    expect(again.body.errors[0]).toMatchObject({ message: `Form ${form.uuid} is not deleted`, correctionSuggestion: 'Only a deleted form can be restored' });

    // The read model is the log's: a rebuild gives the same row.
    const live = await data(t.app, owner, 'GET', `/api/v2/forms/${form.uuid}`);
    await rebuildReadModels(t.platform.db, t.platform.store, [formsProjection, formSubmissionsProjection]);
    expect(await data(t.app, owner, 'GET', `/api/v2/forms/${form.uuid}`)).toEqual(live);
  });

  it('names a property that does not exist, a relation that does not lead to the object, an overlap and a bad score property', async () => {
    const foreign = await anObject(t.app, owner);
    const body = threeStepForm(schema);
    body.items = [
      ...body.items.slice(0, 3),
      { id: 'ghost', kind: 'property', property: 'nope', row: 5, column: 0, width: 4, step: 0 },
      { id: 'over', kind: 'property', property: 'budget', row: 1, column: 4, width: 4, step: 0 },
      { id: 'bad', kind: 'innerForm', relationUuid: foreign.uuid, row: 6, column: 0, width: 12, step: 2, fields: [{ property: 'x' }] },
    ] as never;
    body.scoring = { property: 'name', rules: [] } as never;
    const res = await call(t.app, owner, 'POST', '/api/v2/forms', body);
    expectErrorBody(res, 400);
    const messages = res.body.errors.map((e: { message: string }) => e.message).join('\n');
    expect(messages).toContain('"nope"');
    expect(messages).toContain(`relation ${foreign.uuid}`);
    expect(messages).toContain('overlaps');
    expect(messages).toContain('number property "name"');
  });

  it("another company's form is a 404 on every route", async () => {
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'private-form' }));
    for (const [method, url] of [['GET', `/api/v2/forms/${form.uuid}`], ['PUT', `/api/v2/forms/${form.uuid}`], ['DELETE', `/api/v2/forms/${form.uuid}`], ['POST', `/api/v2/forms/${form.uuid}/restore`], ['POST', `/api/v2/forms/${form.uuid}/submissions/index`]] as const) {
      const res = await call(t.app, other, method, url, method === 'PUT' ? { label: 'x' } : method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    expect((await call(t.app, other, 'POST', '/api/v2/forms/index', {})).body.total).toBe(0);
  });
});

describe('public forms', () => {
  it('shows a visitor only what renders the form, and lists only published forms', async () => {
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'public-one' }));
    const hidden = await createForm(t.app, owner, threeStepForm(schema, { name: 'draft-one', published: false }));
    const res = await t.app.inject({ method: 'GET', url: `/api/v2/forms/public/${owner.companyUuid}/${form.uuid}` });
    expect(res.statusCode, res.body).toBe(200);
    const shown = res.json().data;
    expect(shown).toMatchObject({ uuid: form.uuid, style: 'underline', honeypotField: 'website_url', successMessage: 'Thank you!' });
    expect(shown.items[1].field).toMatchObject({ property: 'name', type: 'string', required: true });
    expect(shown.items[5].fields.map((f: { property: string; required: boolean }) => [f.property, f.required])).toEqual([['fullname', true], ['phone', false]]);
    for (const internal of ['scoring', 'objectUuid', 'published', 'createdBy', 'revision']) expect(res.body).not.toContain(`"${internal}"`);
    expect(res.body).not.toContain(schema.relation.uuid);
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/forms/public/${owner.companyUuid}/${hidden.uuid}` })).statusCode).toBe(404);
    const list = await t.app.inject({ method: 'POST', url: `/api/v2/forms/public/${owner.companyUuid}/index`, payload: {} });
    const uuids = list.json().data.map((f: { uuid: string }) => f.uuid);
    expect(uuids).toContain(form.uuid);
    expect(uuids).not.toContain(hidden.uuid);
  });

  it('a three-step submission with an inner form creates one record, its related records and relations, with the score', async () => {
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'wizard-main' }));
    const [records0, links0] = [await recordCount(owner.companyUuid), await linkCount(owner.companyUuid)];
    for (const step of [0, 1, 2]) {
      const checked = await submit(owner.companyUuid, form.uuid, goodAnswers, step);
      expect(checked.status, JSON.stringify(checked.body)).toBe(200);
      expect(checked.body.data).toMatchObject({ valid: true, step, submissionUuid: null });
    }
    expect(await recordCount(owner.companyUuid)).toBe(records0);
    const res = await submit(owner.companyUuid, form.uuid, goodAnswers);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({ successMessage: 'Thank you!', redirectUrl: null });
    expect(JSON.stringify(res.body)).not.toContain('score');
    expect(await recordCount(owner.companyUuid)).toBe(records0 + 3);
    expect(await linkCount(owner.companyUuid)).toBe(links0 + 2);

    const subs = await call(t.app, owner, 'POST', `/api/v2/forms/${form.uuid}/submissions/index`, {});
    expect(subs.body.total).toBe(1);
    const sub = subs.body.data[0];
    expect(sub).toMatchObject({ uuid: res.body.data.submissionUuid, formRevision: 0, score: 30 + 20 + 10, visitor: { address: '127.0.0.0', userAgent: 'vitest-visitor/1.0' } });
    expect(sub.recordUuids).toHaveLength(3);
    const lead = await data(t.app, owner, 'GET', `/api/v2/records/${sub.recordUuid}`);
    expect(lead.properties).toMatchObject({ name: 'Ada', email: 'ada@corp.example', budget: 5000, country: 'NL', score: 60 });
    const links = await t.platform.db.query<{ to_record: string }>('select to_record from rm_record_links where tenant = $1 and relation_uuid = $2 and from_record = $3 order by to_record', [owner.companyUuid, schema.relation.uuid, sub.recordUuid]);
    expect(links.map((l) => l.to_record)).toEqual(sub.related.map((r: { recordUuid: string }) => r.recordUuid).sort());
    const contact = await data(t.app, owner, 'GET', `/api/v2/records/${sub.related[0].recordUuid}`);
    expect(contact.properties.fullname).toBe('Grace Hopper');

    // Read as the form looked then, after the form changed.
    await data(t.app, owner, 'PUT', `/api/v2/forms/${form.uuid}`, { label: 'Changed later', steps: [{ title: 'One' }, { title: 'Two' }, { title: 'Three' }] });
    const one = await data(t.app, owner, 'GET', `/api/v2/forms/${form.uuid}/submissions/${sub.uuid}`);
    expect(one.submission.uuid).toBe(sub.uuid);
    expect(one.form).toMatchObject({ label: 'Lead wizard', steps: [{ title: 'You' }, { title: 'Budget' }, { title: 'Contacts' }] });
    expect((await call(t.app, other, 'GET', `/api/v2/forms/${form.uuid}/submissions/${sub.uuid}`)).status).toBe(404);
  });

  it('a bad step answers 400 naming the fields and their step, and creates nothing', async () => {
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'wizard-bad' }));
    const before = await recordCount(owner.companyUuid);
    const bad = { answers: { name: 'Bo', email: 'not-an-email', budget: 'lots' }, inner: { contacts: [{ phone: '1' }] } };
    const step0 = await submit(owner.companyUuid, form.uuid, bad, 0);
    expectErrorBody(step0, 400);
    expect(step0.body.errors).toHaveLength(1);
    expect(step0.body.errors[0].message).toContain('answers.email (step 0 "You")');
    const all = await submit(owner.companyUuid, form.uuid, bad);
    expectErrorBody(all, 400);
    const messages = all.body.errors.map((e: { message: string }) => e.message);
    expect(messages.some((m: string) => m.startsWith('answers.email (step 0'))).toBe(true);
    expect(messages.some((m: string) => m.startsWith('answers.budget (step 1'))).toBe(true);
    expect(messages.some((m: string) => m.startsWith('inner.contacts[0].fullname (step 2'))).toBe(true);
    const missing = await submit(owner.companyUuid, form.uuid, { answers: { name: 'Bo' } }, 1);
    expect(missing.body.errors.map((e: { message: string }) => e.message)).toEqual(['answers.budget (step 1 "Budget"): is required']);
    expect(await recordCount(owner.companyUuid)).toBe(before);
    expect((await call(t.app, owner, 'POST', `/api/v2/forms/${form.uuid}/submissions/index`, {})).body.total).toBe(0);
  });

  it("a submission to another company's form, or to an unknown one, is a 404 and creates nothing", async () => {
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'wizard-foreign' }));
    const [mine, theirs] = [await recordCount(owner.companyUuid), await recordCount(other.companyUuid)];
    const res = await submit(other.companyUuid, form.uuid, goodAnswers);
    expectErrorBody(res, 404, 'NOT_FOUND');
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/forms/public/${other.companyUuid}/${form.uuid}` })).statusCode).toBe(404);
    expect(await recordCount(owner.companyUuid)).toBe(mine);
    expect(await recordCount(other.companyUuid)).toBe(theirs);
  });

  it('a failure of any part leaves nothing behind: a taken unique value fails the whole submission', async () => {
    const obj = await anObject(t.app, owner);
    await data(t.app, owner, 'POST', `/api/v2/objects/${obj.uuid}/properties`, { name: 'code', label: 'Code', type: 'string', format: 'text', unique: true });
    const rel = await data(t.app, owner, 'POST', `/api/v2/relations/${schema.lead.uuid}`, { name: 'coded', toObjectUuid: obj.uuid, cardinality: 'MANY_TO_MANY' });
    const form = await createForm(t.app, owner, {
      name: 'unique-inner', objectUuid: schema.lead.uuid, published: true,
      items: [
        { kind: 'property', property: 'name', row: 0, column: 0, width: 12 },
        { id: 'codes', kind: 'innerForm', relationUuid: rel.uuid, row: 1, column: 0, width: 12, fields: [{ property: 'code' }] },
      ],
    });
    expect((await submit(owner.companyUuid, form.uuid, { answers: { name: 'first' }, inner: { codes: [{ code: 'X1' }] } })).status).toBe(201);
    const before = [await recordCount(owner.companyUuid), await linkCount(owner.companyUuid)];
    const res = await submit(owner.companyUuid, form.uuid, { answers: { name: 'second' }, inner: { codes: [{ code: 'Y2' }, { code: 'X1' }] } });
    expectErrorBody(res, 400);
    expect([await recordCount(owner.companyUuid), await linkCount(owner.companyUuid)]).toEqual(before);
    expect((await call(t.app, owner, 'POST', `/api/v2/forms/${form.uuid}/submissions/index`, {})).body.total).toBe(1);
  });
});

describe('what a submission reads before it writes (cached)', () => {
  it('sees the form unpublished, changed and deleted, and its relation deleted, at once', async () => {
    const obj = await anObject(t.app, owner);
    await data(t.app, owner, 'POST', `/api/v2/objects/${obj.uuid}/properties`, { name: 'note', label: 'Note', type: 'string', format: 'text' });
    const rel = await data(t.app, owner, 'POST', `/api/v2/relations/${schema.lead.uuid}`, { name: 'noted', toObjectUuid: obj.uuid, cardinality: 'MANY_TO_MANY' });
    const items = [
      { kind: 'property', property: 'name', row: 0, column: 0, width: 12 },
      { id: 'notes', kind: 'innerForm', relationUuid: rel.uuid, row: 1, column: 0, width: 12, fields: [{ property: 'note' }] },
    ];
    const form = await createForm(t.app, owner, { name: 'cached-form', objectUuid: schema.lead.uuid, published: true, items, successMessage: 'one' });
    const answers = { answers: { name: 'Ada' }, inner: { notes: [{ note: 'hi' }] } };
    expect((await submit(owner.companyUuid, form.uuid, answers)).body.data.successMessage).toBe('one');
    await call(t.app, owner, 'PUT', `/api/v2/forms/${form.uuid}`, { published: false });
    expectErrorBody(await submit(owner.companyUuid, form.uuid, answers), 404, 'NOT_FOUND');
    await call(t.app, owner, 'PUT', `/api/v2/forms/${form.uuid}`, { published: true, successMessage: 'two' });
    expect((await submit(owner.companyUuid, form.uuid, answers)).body.data.successMessage).toBe('two');
    expect((await call(t.app, owner, 'DELETE', `/api/v2/relations/${rel.uuid}`)).status).toBe(200);
    const refused = await submit(owner.companyUuid, form.uuid, answers);
    expectErrorBody(refused, 400);
    expect(JSON.stringify(refused.body)).toContain('no longer exists');
    await call(t.app, owner, 'DELETE', `/api/v2/forms/${form.uuid}`);
    expectErrorBody(await submit(owner.companyUuid, form.uuid, { answers: { name: 'Ada' }, inner: {} }), 404, 'NOT_FOUND');
  });
});

describe('abuse limits', () => {
  it('a client submission id makes a double click one record; the honeypot creates nothing; too many entries is a 400', async () => {
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'wizard-abuse' }));
    const before = await recordCount(owner.companyUuid);
    const once = { ...goodAnswers, inner: {}, clientSubmissionId: 'click-1' };
    const [a, b] = await Promise.all([submit(owner.companyUuid, form.uuid, once), submit(owner.companyUuid, form.uuid, once)]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.data.submissionUuid).toBe(b.body.data.submissionUuid);
    expect(await recordCount(owner.companyUuid)).toBe(before + 1);

    const bot = await submit(owner.companyUuid, form.uuid, { ...goodAnswers, website_url: 'http://spam.example' });
    expect(bot.status).toBe(201);
    expect(await recordCount(owner.companyUuid)).toBe(before + 1);

    const many = await submit(owner.companyUuid, form.uuid, { ...goodAnswers, inner: { contacts: [1, 2, 3, 4].map((n) => ({ fullname: `P${n}` })) } });
    expectErrorBody(many, 400);
    expect(many.body.errors[0].message).toContain('4 entries, the form takes 0 to 3');
    expect(await recordCount(owner.companyUuid)).toBe(before + 1);
  });

  it('rate limits submissions per address and form with a 429 error body', async () => {
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'wizard-rate' }));
    const statuses: number[] = [];
    let last: { status: number; body: Record<string, any> } | null = null;
    for (let i = 0; i < 7; i++) {
      last = await submit(owner.companyUuid, form.uuid, { answers: {} }, 0);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 6).every((s) => s === 400)).toBe(true);
    expectErrorBody(last!, 429);
    // Another form from the same address is not limited by this one.
    const second = await createForm(t.app, owner, threeStepForm(schema, { name: 'wizard-rate-2' }));
    expect((await submit(owner.companyUuid, second.uuid, goodAnswers, 0)).status).toBe(200);
  });

  it('refuses a body past the submission limit', async () => {
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'wizard-big' }));
    const res = await submit(owner.companyUuid, form.uuid, { answers: { name: 'x'.repeat(70_000) } });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].correctionSuggestion.length).toBeGreaterThan(0);
  });
});

describe('public upload', () => {
  const multipart = (name: string, bytes: Buffer) => {
    const boundary = 'form-upload-boundary';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
  };
  const png = () => Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'), Buffer.alloc(64)]);

  it('stores a file for a file field through the files service, refuses a type the field does not take, and the answer names it', async () => {
    const obj = await anObject(t.app, owner);
    await data(t.app, owner, 'POST', `/api/v2/objects/${obj.uuid}/properties`, { name: 'photo', label: 'Photo', type: 'string', format: 'file', options: [{ value: 'image/png', label: 'PNG' }] });
    await data(t.app, owner, 'POST', `/api/v2/objects/${obj.uuid}/properties`, { name: 'title', label: 'Title', type: 'string', format: 'text' });
    const form = await createForm(t.app, owner, { name: 'with-upload', objectUuid: obj.uuid, published: true, items: [{ kind: 'property', property: 'title', row: 0, column: 0, width: 12 }, { kind: 'property', property: 'photo', row: 1, column: 0, width: 12 }] });
    const url = `/api/v2/forms/public/${owner.companyUuid}/${form.uuid}/upload`;
    const up = await t.app.inject({ method: 'POST', url: `${url}?property=photo`, ...multipart('me.png', png()) });
    expect(up.statusCode, up.body).toBe(201);
    const file = up.json().data;
    expect(file).toMatchObject({ name: 'me.png', contentType: 'image/png' });
    const wrongType = await t.app.inject({ method: 'POST', url: `${url}?property=photo`, ...multipart('me.png', Buffer.from('just text, not an image')) });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().errors[0].type).toBe('INVALID_FILE_TYPE');
    expect((await t.app.inject({ method: 'POST', url: `${url}?property=title`, ...multipart('me.png', png()) })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: `/api/v2/forms/public/${other.companyUuid}/${form.uuid}/upload?property=photo`, ...multipart('me.png', png()) })).statusCode).toBe(404);
    const res = await submit(owner.companyUuid, form.uuid, { answers: { title: 'Me', photo: file.fileUuid } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [sub] = (await call(t.app, owner, 'POST', `/api/v2/forms/${form.uuid}/submissions/index`, {})).body.data;
    expect((await data(t.app, owner, 'GET', `/api/v2/records/${sub.recordUuid}`)).properties.photo).toEqual(file.fileUuid);
  });
});
