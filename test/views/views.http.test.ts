import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObject, aProperty, call, data, expectErrorBody } from '../schema/schema-fixtures.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { viewsProjection } from '../../projections/views.projection.js';

let t: TestApp;
let admin: TestTenant;
let member: TestTenant;
let other: TestTenant;
let object: { uuid: string; name: string };

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  admin = await signUpWithCompany(t.app);
  member = await joinCompany(t.app, admin);
  other = await joinCompany(t.app, admin);
  object = await schemaFor(admin);
});
afterAll(async () => t.close());

/** A ticket object: title (text), status (select), score (number). */
async function schemaFor(who: TestTenant) {
  const o = await anObject(t.app, who);
  await aProperty(t.app, who, o.uuid, { name: 'title', type: 'string', format: 'text' });
  await aProperty(t.app, who, o.uuid, { name: 'status', type: 'string', format: 'select', options: [{ value: 'open', label: 'Open' }, { value: 'done', label: 'Done' }] });
  await aProperty(t.app, who, o.uuid, { name: 'score', type: 'number', format: 'number' });
  return o as { uuid: string; name: string };
}

const aView = (overrides: Record<string, unknown> = {}) => ({
  name: 'Open tickets',
  objectUuid: object.uuid,
  columns: [{ key: 'title', width: 240 }, { key: 'status' }, { key: 'createdAt', width: 120 }],
  filters: [{ key: 'status', operator: 'EQUALS', value: 'open' }],
  sort: [{ key: 'score', direction: 'desc' }],
  pageSize: 50,
  groupBy: 'status',
  ...overrides,
});

const namesOf = async (who: TestTenant, body: unknown = {}) =>
  ((await data(t.app, who, 'POST', `/api/v2/views/index/${object.uuid}`, body)) as { name: string }[]).map((v) => v.name).sort();

describe('view CRUD', () => {
  it('creates, reads, lists per object, updates, deletes and restores', async () => {
    const created = await call(t.app, member, 'POST', '/api/v2/views', aView());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const view = created.body.data;
    expect(view).toMatchObject({
      name: 'Open tickets',
      objectUuid: object.uuid,
      objectName: object.name,
      columns: [{ key: 'title', width: 240 }, { key: 'status', width: null }, { key: 'createdAt', width: 120 }],
      filters: [{ key: 'status', operator: 'equals', value: 'open' }],
      sort: [{ key: 'score', direction: 'desc' }],
      pageSize: 50,
      groupBy: 'status',
      sharing: 'personal',
      teamUuid: null,
      ownerUuid: member.userUuid,
      createdBy: { uuid: member.userUuid },
      deletedAt: null,
      revision: 0,
    });
    expect(await data(t.app, member, 'GET', `/api/v2/views/${view.uuid}`)).toEqual(view);

    const updated = await data(t.app, member, 'PUT', `/api/v2/views/${view.uuid}`, { columns: [{ key: 'status', width: 80 }, { key: 'title', width: 300 }], groupBy: null, pageSize: 10 });
    expect(updated).toMatchObject({ revision: 1, columns: [{ key: 'status', width: 80 }, { key: 'title', width: 300 }], groupBy: null, pageSize: 10, name: 'Open tickets', filters: view.filters });
    // Nothing changed: no event, the same revision.
    expect((await data(t.app, member, 'PUT', `/api/v2/views/${view.uuid}`, { pageSize: 10 })).revision).toBe(1);

    const list = await call(t.app, member, 'POST', `/api/v2/views/index/${object.uuid}`, { query: 'open' });
    expect(list.body).toMatchObject({ total: 1, page: 0 });
    expect(list.body.data[0].uuid).toBe(view.uuid);

    expect((await call(t.app, member, 'DELETE', `/api/v2/views/${view.uuid}`)).body.data).toBe('deleted');
    expect((await call(t.app, member, 'GET', `/api/v2/views/${view.uuid}`)).status).toBe(404);
    expect((await call(t.app, member, 'PUT', `/api/v2/views/${view.uuid}`, { name: 'x' })).status).toBe(404);
    expect((await call(t.app, member, 'POST', `/api/v2/views/index/${object.uuid}`, { query: 'open' })).body.total).toBe(0);
    const deleted = await data(t.app, member, 'POST', `/api/v2/views/index/${object.uuid}`, { filters: [{ key: 'deleted', operator: 'equals', value: true }] });
    expect(deleted.map((v: { uuid: string }) => v.uuid)).toEqual([view.uuid]);

    const restored = await call(t.app, member, 'POST', `/api/v2/views/${view.uuid}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.data).toMatchObject({ uuid: view.uuid, deletedAt: null, pageSize: 10, revision: 3 });
    // Restoring a live view: 409 with the error body, as records, saved filters and menus answer (issue 32, item 4).
    const again = await call(t.app, member, 'POST', `/api/v2/views/${view.uuid}/restore`);
    expectErrorBody(again, 409, 'GENERAL');
    expect(again.body.errors[0]).toMatchObject({ message: `View ${view.uuid} is not deleted`, correctionSuggestion: 'Only a deleted view can be restored' });
    await data(t.app, member, 'DELETE', `/api/v2/views/${view.uuid}`);
  });

  it('defaults to every property as a column, 25 a page, personal', async () => {
    const view = await data(t.app, member, 'POST', '/api/v2/views', { name: 'Plain', objectUuid: object.uuid });
    expect(view).toMatchObject({ columns: [{ key: 'title', width: null }, { key: 'status', width: null }, { key: 'score', width: null }], filters: [], groups: [], sort: [], pageSize: 25, groupBy: null, sharing: 'personal' });
    await data(t.app, member, 'DELETE', `/api/v2/views/${view.uuid}`);
  });

  it("checks columns, filters (the records' filter language), sort, page size and grouping, naming each problem", async () => {
    const bad = await call(t.app, member, 'POST', '/api/v2/views', aView({
      columns: [{ key: 'nope' }, { key: 'title', width: 5 }, { key: 'title' }],
      filters: [{ key: 'score', operator: 'contains', value: 'x' }, { key: 'ghost', operator: 'equals', value: 1 }],
      groups: [{ items: [{ property: 'score', operator: 'gt', value: 'high' }] }],
      sort: [{ key: 'missing' }],
      pageSize: 500,
      groupBy: 'title',
    }));
    expectErrorBody(bad, 400);
    const messages = bad.body.errors.map((e: { message: string }) => e.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/columns\.0\.key: .* has no field nope/),
        expect.stringMatching(/columns\.1\.width: width must be 20 to 4000/),
        expect.stringMatching(/columns\.2\.key: title is shown twice/),
        expect.stringMatching(/filters\.0\.operator: operator contains does not apply to score/),
        expect.stringMatching(/filters\.1\.key: unknown field "ghost"/),
        expect.stringMatching(/groups\.0\.items\.0\.value: score gt needs a number/),
        expect.stringMatching(/sort\.0\.key: unknown field "missing"/),
        expect.stringMatching(/pageSize: pageSize must be 1 to 100/),
        expect.stringMatching(/groupBy: title is not a select property/),
      ]),
    );
    expect(messages).toHaveLength(9);
    for (const e of bad.body.errors) expect(e.correctionSuggestion.length).toBeGreaterThan(0);

    const missing = await call(t.app, member, 'POST', '/api/v2/views', { name: 'x' });
    expectErrorBody(missing, 400);
    const unknownObject = await call(t.app, member, 'POST', '/api/v2/views', { name: 'x', objectUuid: '00000000-0000-4000-8000-000000000000' });
    expectErrorBody(unknownObject, 400, 'NOT_FOUND');
    expectErrorBody(await call(t.app, member, 'POST', '/api/v2/views', { ...aView(), extra: 1 }), 400);
  });
});

describe('sharing', () => {
  it('another member sees company views, not personal ones; a team view only inside the team', async () => {
    const team = await data(t.app, admin, 'POST', '/api/v2/teams', { name: 'Support' });
    await data(t.app, admin, 'PUT', `/api/v2/teams/${team.uuid}/users/${member.userUuid}`);
    const personal = await data(t.app, admin, 'POST', '/api/v2/views', aView({ name: 'S admin personal' }));
    const company = await data(t.app, admin, 'POST', '/api/v2/views', aView({ name: 'S company', sharing: 'company' }));
    const forTeam = await data(t.app, admin, 'POST', '/api/v2/views', aView({ name: 'S team', sharing: 'team', teamUuid: team.uuid }));
    expect(forTeam).toMatchObject({ sharing: 'team', teamUuid: team.uuid });

    const s = (names: string[]) => names.filter((n) => n.startsWith('S '));
    expect(s(await namesOf(admin))).toEqual(['S admin personal', 'S company', 'S team']);
    expect(s(await namesOf(member))).toEqual(['S company', 'S team']);
    expect(s(await namesOf(other))).toEqual(['S company']);

    expect((await call(t.app, member, 'GET', `/api/v2/views/${company.uuid}`)).status).toBe(200);
    expect((await call(t.app, member, 'GET', `/api/v2/views/${forTeam.uuid}`)).status).toBe(200);
    // Invisible is the same 404 as missing, on every route.
    for (const [who, uuid] of [[member, personal.uuid], [other, personal.uuid], [other, forTeam.uuid]] as const) {
      for (const [method, url, body] of [
        ['GET', `/api/v2/views/${uuid}`, undefined],
        ['PUT', `/api/v2/views/${uuid}`, { name: 'mine now' }],
        ['DELETE', `/api/v2/views/${uuid}`, undefined],
        ['POST', `/api/v2/views/${uuid}/restore`, undefined],
      ] as const) {
        expectErrorBody(await call(t.app, who, method, url, body), 404, 'NOT_FOUND');
      }
    }

    // Leaving the team hides its views.
    await data(t.app, admin, 'DELETE', `/api/v2/teams/${team.uuid}/users/${member.userUuid}`);
    expect(s(await namesOf(member))).toEqual(['S company']);

    // A shared view becomes personal again: the others lose it.
    await data(t.app, admin, 'PUT', `/api/v2/views/${company.uuid}`, { sharing: 'personal' });
    expect(s(await namesOf(other))).toEqual([]);
    for (const v of [personal, company, forTeam]) await data(t.app, admin, 'DELETE', `/api/v2/views/${v.uuid}`);
  });

  it('a team view needs a live team of the company', async () => {
    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/views', aView({ sharing: 'team' })), 400);
    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/views', aView({ sharing: 'team', teamUuid: '00000000-0000-4000-8000-000000000000' })), 400, 'NOT_FOUND');
  });
});

describe('the 401 / 403 / 404 matrix', () => {
  it('401 without a token, on every route', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    for (const [method, url] of [
      ['POST', '/api/v2/views'],
      ['POST', `/api/v2/views/index/${object.uuid}`],
      ['GET', `/api/v2/views/${uuid}`],
      ['PUT', `/api/v2/views/${uuid}`],
      ['DELETE', `/api/v2/views/${uuid}`],
      ['POST', `/api/v2/views/${uuid}/restore`],
    ] as const) {
      expectErrorBody(await call(t.app, null, method, url, method === 'GET' || method === 'DELETE' ? undefined : {}), 401);
    }
  });

  it('403: sharing without views:share; changing a shared view of another; a user without a company', async () => {
    const shared = await call(t.app, member, 'POST', '/api/v2/views', aView({ sharing: 'company' }));
    expectErrorBody(shared, 403);
    expect(shared.body.scopes).toEqual(['views:share']);
    const mine = await data(t.app, member, 'POST', '/api/v2/views', aView({ name: 'M personal' }));
    expectErrorBody(await call(t.app, member, 'PUT', `/api/v2/views/${mine.uuid}`, { sharing: 'company' }), 403);

    const company = await data(t.app, admin, 'POST', '/api/v2/views', aView({ name: 'M company', sharing: 'company' }));
    for (const [method, url, body] of [
      ['PUT', `/api/v2/views/${company.uuid}`, { name: 'taken over' }],
      ['DELETE', `/api/v2/views/${company.uuid}`, undefined],
    ] as const) {
      expectErrorBody(await call(t.app, member, method, url, body), 403);
    }
    expect((await data(t.app, admin, 'GET', `/api/v2/views/${company.uuid}`)).name).toBe('M company');

    // A member holding views:share manages shared views of others, and shares its own.
    const sharer = await joinCompany(t.app, admin, { scopes: ['views:share'] });
    expect((await data(t.app, sharer, 'PUT', `/api/v2/views/${company.uuid}`, { name: 'M renamed' })).name).toBe('M renamed');
    expect((await data(t.app, sharer, 'POST', '/api/v2/views', aView({ name: 'M by sharer', sharing: 'company' }))).sharing).toBe('company');
    // ... but never another member's personal view: it does not see it.
    expectErrorBody(await call(t.app, sharer, 'PUT', `/api/v2/views/${mine.uuid}`, { name: 'x' }), 404);

    // Signed in, no company selected.
    const loner = await joinCompany(t.app, admin);
    await data(t.app, admin, 'DELETE', `/api/v2/companies/${admin.companyUuid}/users/${loner.userUuid}`);
    const refused = await call(t.app, loner, 'GET', `/api/v2/views/${company.uuid}`);
    expectErrorBody(refused, 403);
  });

  it("another company's view and object answer 404; its object is unknown to a create", async () => {
    const [a, b] = await twoTenants(t.app);
    const theirObject = await schemaFor(a);
    const view = await data(t.app, a, 'POST', '/api/v2/views', { name: 'A company view', objectUuid: theirObject.uuid, sharing: 'company' });
    for (const [method, url, body] of [
      ['GET', `/api/v2/views/${view.uuid}`, undefined],
      ['PUT', `/api/v2/views/${view.uuid}`, { name: 'x' }],
      ['DELETE', `/api/v2/views/${view.uuid}`, undefined],
      ['POST', `/api/v2/views/${view.uuid}/restore`, undefined],
      ['POST', `/api/v2/views/index/${theirObject.uuid}`, {}],
    ] as const) {
      expectErrorBody(await call(t.app, b, method, url, body), 404, 'NOT_FOUND');
    }
    expectErrorBody(await call(t.app, b, 'POST', '/api/v2/views', { name: 'x', objectUuid: theirObject.uuid }), 400, 'NOT_FOUND');
  });
});

describe('rebuild of rm_views', () => {
  it('replaying the log gives the same rows', async () => {
    const rows = () => t.platform.db.query('select * from rm_views order by tenant, view_uuid');
    const v = await data(t.app, admin, 'POST', '/api/v2/views', aView({ name: 'R one', sharing: 'company' }));
    await data(t.app, admin, 'PUT', `/api/v2/views/${v.uuid}`, { columns: [{ key: 'score', width: 90 }] });
    await data(t.app, admin, 'DELETE', `/api/v2/views/${v.uuid}`);
    const live = await rows();
    expect(live.length).toBeGreaterThan(0);
    await rebuildReadModels(t.platform.db, t.platform.store, [viewsProjection]);
    expect(await rows()).toEqual(live);
  });
});
