import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObjectWith, aRecord, call, data, expectErrorBody, index, unique } from '../records/records-fixtures.js';
import { aRelation } from '../schema/schema-fixtures.js';
import { aPage, aSite } from '../webpages/cms-fixtures.js';

let t: TestApp;
let admin: TestTenant;
let reseller: TestTenant;
/** The reseller acting in a managed company (selected). */
let inClient: (uuid: string) => Promise<TestTenant>;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  admin = await signUpWithCompany(t.app);
  reseller = await joinCompany(t.app, admin, { role: 'RESELLER' });
  inClient = async (uuid) => {
    await data(t.app, reseller, 'POST', `/api/v2/auth/companies/${uuid}/select`);
    return { ...reseller, companyUuid: uuid };
  };
});
afterAll(async () => t.close());

const sub = () => unique('client').replace(/_/g, '-');
const home = () => data(t.app, reseller, 'POST', `/api/v2/auth/companies/${admin.companyUuid}/select`);

/** What a company's lists answer, without the uuids that differ between a source and its copy. */
async function lists(who: TestTenant, objectNames: string[]) {
  const objects = (await data(t.app, who, 'POST', '/api/v2/objects/index', { limit: 100 })) as { name: string; label: string; uuid: string }[];
  const records: Record<string, unknown[]> = {};
  for (const name of objectNames) {
    const all: { properties: Record<string, unknown> }[] = [];
    for (let page = 0; ; page++) {
      const res = await index(t.app, who, name, { limit: 100, page, sort: [{ key: name === objectNames[3] ? 'headline' : 'n', direction: 'asc' }] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      all.push(...res.body.data);
      if (page >= res.body.lastPage) break;
    }
    records[name] = all.map((r) => r.properties).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  const relations = ((await data(t.app, who, 'POST', '/api/v2/relations/index', { limit: 100 })) as { name: string; cardinality: string }[]).map((r) => `${r.name}:${r.cardinality}`).sort();
  const forms = ((await data(t.app, who, 'POST', '/api/v2/forms/index', { limit: 100 })) as { name: string; label: string }[]).map((f) => `${f.name}:${f.label}`).sort();
  const [links] = await t.platform.db.query<{ n: number }>('select count(*)::int4 as n from rm_record_links where tenant = $1 and connected', [who.companyUuid]);
  return { objects: objects.map((o) => `${o.name}:${o.label}`).sort(), records, relations, forms, links: links!.n };
}

async function copyOf(sourceUuid: string, body: Record<string, unknown> = {}) {
  const res = await call(t.app, reseller, 'POST', `/api/v2/partners/companies/${sourceUuid}/copy`, { name: 'Copy', subdomain: sub(), ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await t.app.companyDataCopies.settled();
  const status = await data(t.app, reseller, 'GET', `/api/v2/partners/companies/${res.body.data.uuid}/copy`);
  expect(status).toMatchObject({ status: 'finished', percentage: 100, sourceCompanyUuid: sourceUuid });
  return res.body.data.uuid as string;
}

async function mapping(copyUuid: string, kind: string) {
  const out = new Map<string, string>();
  for (let page = 0; ; page++) {
    const res = await call(t.app, reseller, 'POST', `/api/v2/partners/companies/${copyUuid}/copy/uuids/index`, { limit: 100, page, filters: [{ key: 'kind', operator: 'equals', value: kind }] });
    expect(res.status).toBe(200);
    for (const m of res.body.data as { sourceUuid: string; copyUuid: string }[]) out.set(m.sourceUuid, m.copyUuid);
    if (page >= res.body.lastPage) return out;
  }
}

describe('partner copies carry the data (spec 1.16)', () => {
  it('a copy of 3 related objects, 1,000 records with links, a form and a page answers the same lists with other uuids; a copy of the copy too', async () => {
    await home();
    const client = await data(t.app, reseller, 'POST', '/api/v2/partners/companies', { name: 'Client', subdomain: sub() });
    const who = await inClient(client.uuid);
    const site = await aSite(t.app, who);
    const a = await anObjectWith(t.app, who, { title: { type: 'string', format: 'text' }, n: { type: 'number', format: 'number' } });
    const b = await anObjectWith(t.app, who, { title: { type: 'string', format: 'text' }, n: { type: 'number', format: 'number' } });
    const c = await anObjectWith(t.app, who, { title: { type: 'string', format: 'text' }, n: { type: 'number', format: 'number' } });
    const ab = await aRelation(t.app, who, a.uuid, b.uuid);
    await aRelation(t.app, who, b.uuid, c.uuid);
    const made: Record<string, string[]> = { [a.name]: [], [b.name]: [], [c.name]: [] };
    for (let i = 0; i < 1000; i++) {
      const object = [a, b, c][i % 3]!;
      made[object.name]!.push((await aRecord(t.app, who, object.name, { title: `record ${i}`, n: i })).uuid);
    }
    for (let i = 0; i < 50; i++) expect((await call(t.app, who, 'PUT', `/api/v2/relations/${ab.uuid}/connection/${made[a.name]![i]}/${made[b.name]![i]}`, {})).status).toBe(200);
    const form = await data(t.app, who, 'POST', '/api/v2/forms', { name: 'signup', label: 'Sign up', objectUuid: a.uuid, items: [{ id: 'title', kind: 'property', property: 'title', row: 0, column: 0, width: 12 }] });
    const { page } = await aPage(t.app, who, site);
    const names = [a.name, b.name, c.name, site.object.name];
    const source = await lists(who, names);
    expect(source.links).toBe(50);

    await home();
    const copyUuid = await copyOf(client.uuid);
    const inCopy = await inClient(copyUuid);
    const copied = await lists(inCopy, names);
    expect(copied).toEqual(source);

    // Other uuids, the mapping readable (by the reseller, from its own company), and each copied record is its source's.
    await home();
    const records = await mapping(copyUuid, 'record');
    expect(records.size).toBe(1000 + 1);
    const objects = await mapping(copyUuid, 'object');
    const copiedForm = (await mapping(copyUuid, 'form')).get(form.uuid)!;
    const copiedPage = (await mapping(copyUuid, 'page')).get(page.uuid)!;
    const someSource = made[b.name]![7]!;
    const someCopy = records.get(someSource)!;
    expect(someCopy).not.toBe(someSource);
    const sourceRecord = (await data(t.app, await inClient(client.uuid), 'GET', `/api/v2/records/${someSource}`)).properties;
    const pageInSource = await data(t.app, who, 'GET', `/api/v2/webpages/${page.uuid}`);
    await inClient(copyUuid);
    expect((await data(t.app, inCopy, 'GET', `/api/v2/records/${someCopy}`)).properties).toEqual(sourceRecord);
    expectErrorBody(await call(t.app, inCopy, 'GET', `/api/v2/records/${someSource}`), 404);
    expect(objects.get(a.uuid)).toBeDefined();
    expect((await data(t.app, inCopy, 'GET', `/api/v2/forms/${copiedForm}`)).objectUuid).toBe(objects.get(a.uuid));
    const pageInCopy = await data(t.app, inCopy, 'GET', `/api/v2/webpages/${copiedPage}`);
    expect(pageInCopy.document.modules).toEqual(pageInSource.document.modules);

    // A copy of the copy answers the same lists.
    await home();
    const second = await copyOf(copyUuid);
    expect(await lists(await inClient(second), names)).toEqual(source);
    await home();
  }, 600_000);

  it('asOf: a copy as of a position holds only what the source held then', async () => {
    await home();
    const client = await data(t.app, reseller, 'POST', '/api/v2/partners/companies', { name: 'Client', subdomain: sub() });
    const who = await inClient(client.uuid);
    const a = await anObjectWith(t.app, who, { title: { type: 'string', format: 'text' }, n: { type: 'number', format: 'number' } });
    const first = await aRecord(t.app, who, a.name, { title: 'before', n: 1 });
    const events = (await data(t.app, who, 'POST', '/api/v2/events/index', { filters: [{ key: 'stream', operator: 'equals', value: `record-${first.uuid}` }] })) as { position: number }[];
    await data(t.app, who, 'PUT', `/api/v2/${a.name}/${first.uuid}`, { properties: { title: 'after' } });
    await aRecord(t.app, who, a.name, { title: 'later', n: 2 });
    await home();
    const copyUuid = await copyOf(client.uuid, { asOf: String(events[0]!.position) });
    const inCopy = await inClient(copyUuid);
    const res = await index(t.app, inCopy, a.name, { limit: 10 });
    expect(res.body.data.map((r: { properties: { title: string } }) => r.properties.title)).toEqual(['before']);
    await home();
  });

  it('401, 403 and 404 on the copy routes; another reseller\'s copy is a 404', async () => {
    await home();
    const client = await data(t.app, reseller, 'POST', '/api/v2/partners/companies', { name: 'Client', subdomain: sub() });
    const copyUuid = await copyOf(client.uuid);
    const routes: [string, string, unknown?][] = [
      ['GET', `/api/v2/partners/companies/${copyUuid}/copy`],
      ['POST', `/api/v2/partners/companies/${copyUuid}/copy/uuids/index`, {}],
      ['POST', `/api/v2/partners/companies/${client.uuid}/copy`, { name: 'x', subdomain: sub() }],
    ];
    for (const [method, url, body] of routes) expectErrorBody(await call(t.app, null, method as 'GET', url, body), 401);
    for (const [method, url, body] of routes) expectErrorBody(await call(t.app, admin, method as 'GET', url, body), 403);
    const otherReseller = await joinCompany(t.app, await signUpWithCompany(t.app), { role: 'RESELLER' });
    for (const [method, url, body] of routes) expectErrorBody(await call(t.app, otherReseller, method as 'GET', url, body), 404, 'NOT_FOUND');
    // A managed company that is no copy: 404 on its copy status.
    expectErrorBody(await call(t.app, reseller, 'GET', `/api/v2/partners/companies/${client.uuid}/copy`), 404, 'NOT_FOUND');
    expectErrorBody(await call(t.app, reseller, 'POST', `/api/v2/partners/companies/${client.uuid}/copy`, { name: 'x', subdomain: sub(), asOf: 'soon' }), 400, 'INVALID_DATE');
  });
});
