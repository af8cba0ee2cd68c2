import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { linksOfRecords } from '../../read-models/record-links.queries.js';
import { loadObjectSchema } from '../../read-models/schema.queries.js';
import { makeConnectionsService } from '../../src/schema/connections.service.js';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aProperty, aRelation, anObject, call, data, expectErrorBody, unique } from './schema-fixtures.js';

let t: TestApp;
let admin: TestTenant;
let company: { uuid: string; name: string };
let person: { uuid: string; name: string };
let tag: { uuid: string; name: string };
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUpWithCompany(t.app);
  company = await anObject(t.app, admin, { name: 'company_obj' });
  person = await anObject(t.app, admin, { name: 'person' });
  tag = await anObject(t.app, admin, { name: 'tag' });
});
afterAll(async () => t.close());

const names = (res: { body: Record<string, any> }) => res.body.data.map((r: { name: string }) => r.name).sort();

/** `n` new records of the object (connections check that both ends are live records of the relation's objects). */
async function recordsOf(objectName: string, n: number, who: TestTenant = admin): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await data(t.app, who, 'POST', `/api/v2/${objectName}`, { properties: {} })).uuid);
  return out;
}

describe('relation definitions', () => {
  it('creates a relation, then updates it when the same name is sent again', async () => {
    const created = await call(t.app, admin, 'POST', `/api/v2/relations/${company.uuid}`, {
      name: 'employees', toObjectUuid: person.uuid, cardinality: 'ONE_TO_MANY', direction: 'BIDIRECTIONAL', fromName: 'employees', toName: 'employer', label: 'Employees',
    });
    expect(created.status).toBe(201);
    const rel = created.body.data;
    expect(rel).toMatchObject({ name: 'employees', fromObjectUuid: company.uuid, toObjectUuid: person.uuid, cardinality: 'ONE_TO_MANY', direction: 'BIDIRECTIONAL', fromName: 'employees', toName: 'employer', deleted: false });

    const again = await call(t.app, admin, 'POST', `/api/v2/relations/${company.uuid}`, { name: 'employees', toObjectUuid: person.uuid, cardinality: 'ONE_TO_MANY', label: 'Staff', toName: 'works_at' });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ uuid: rel.uuid, label: 'Staff', toName: 'works_at', direction: 'BIDIRECTIONAL', revision: rel.revision + 1 });
    expect((await data(t.app, admin, 'GET', `/api/v2/relations/${rel.uuid}`)).label).toBe('Staff');

    for (const change of [{ cardinality: 'MANY_TO_MANY' }, { toObjectUuid: tag.uuid }]) {
      const res = await call(t.app, admin, 'POST', `/api/v2/relations/${company.uuid}`, { name: 'employees', toObjectUuid: person.uuid, cardinality: 'ONE_TO_MANY', ...change });
      expectErrorBody(res, 400, 'INVALID_VALUE');
      expect(res.body.errors[0].correctionSuggestion).toMatch(/create a relation with another name/);
    }
  });

  it('refuses bad relations with 400s and a suggestion', async () => {
    const post = (body: Record<string, unknown>) => call(t.app, admin, 'POST', `/api/v2/relations/${company.uuid}`, { name: unique('r'), toObjectUuid: person.uuid, cardinality: 'MANY_TO_MANY', ...body });
    expectErrorBody(await post({ direction: 'BIDIRECTIONAL' }), 400);
    expectErrorBody(await post({ cardinality: 'SOME_TO_SOME' }), 400, 'INVALID_VALUE');
    expectErrorBody(await post({ name: 'has space' }), 400, 'INVALID_VALUE');
    expectErrorBody(await post({ toObjectUuid: randomUUID() }), 400, 'INVALID_VALUE');
    expectErrorBody(await post({ edgeProperties: [{ name: 'since', type: 'date' }, { name: 'since', type: 'string' }] }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/relations/${randomUUID()}`, { name: 'x', toObjectUuid: person.uuid, cardinality: 'MANY_TO_MANY' }), 404, 'NOT_FOUND');
  });

  it('lists all relations, those of one object, and those between two objects', async () => {
    const [a, b, c] = [await anObject(t.app, admin), await anObject(t.app, admin), await anObject(t.app, admin)];
    await aRelation(t.app, admin, a.uuid, b.uuid, { name: 'a_to_b' });
    await aRelation(t.app, admin, b.uuid, a.uuid, { name: 'b_to_a_directed' });
    await aRelation(t.app, admin, b.uuid, a.uuid, { name: 'b_to_a_both', direction: 'BIDIRECTIONAL', toName: 'bs' });
    await aRelation(t.app, admin, c.uuid, b.uuid, { name: 'c_to_b' });
    expect(names(await call(t.app, admin, 'POST', `/api/v2/relations/index/${a.uuid}`))).toEqual(['a_to_b', 'b_to_a_both', 'b_to_a_directed']);
    expect(names(await call(t.app, admin, 'POST', `/api/v2/relations/index/${b.uuid}`, { limit: 2, sort: [{ key: 'name', direction: 'asc' }] }))).toEqual(['a_to_b', 'b_to_a_both']);
    expect((await call(t.app, admin, 'POST', `/api/v2/relations/index/${b.uuid}`, { limit: 2 })).body).toMatchObject({ total: 4, page: 0, lastPage: 1 });
    expect(names(await call(t.app, admin, 'POST', `/api/v2/relations/index/${a.uuid}/${b.uuid}`))).toEqual(['a_to_b', 'b_to_a_both']);
    expect(names(await call(t.app, admin, 'POST', `/api/v2/relations/index/${b.uuid}/${a.uuid}`))).toEqual(['b_to_a_both', 'b_to_a_directed']);
    expect(names(await call(t.app, admin, 'POST', `/api/v2/relations/index/${a.uuid}/${c.uuid}`))).toEqual([]);
    const all = await call(t.app, admin, 'POST', '/api/v2/relations/index', { filters: [{ key: 'fromObjectUuid', operator: 'in', value: [a.uuid, c.uuid] }] });
    expect(names(all)).toEqual(['a_to_b', 'c_to_b']);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/relations/index/${randomUUID()}`), 404);
  });

  it('updateIndices sets several indices at once, or none when one uuid is unknown', async () => {
    const [a, b] = [await anObject(t.app, admin), await anObject(t.app, admin)];
    const r1 = await aRelation(t.app, admin, a.uuid, b.uuid, { name: 'first' });
    const r2 = await aRelation(t.app, admin, a.uuid, b.uuid, { name: 'second' });
    const updated = await data(t.app, admin, 'PUT', '/api/v2/relations/updateIndices', { [r1.uuid]: 5, [r2.uuid]: 1 });
    expect(updated.map((r: { name: string; index: number }) => [r.name, r.index])).toEqual([['second', 1], ['first', 5]]);
    expect(names(await call(t.app, admin, 'POST', `/api/v2/relations/index/${a.uuid}`))).toEqual(['first', 'second']);
    expect((await call(t.app, admin, 'POST', `/api/v2/relations/index/${a.uuid}`)).body.data.map((r: { name: string }) => r.name)).toEqual(['second', 'first']);
    const missing = await call(t.app, admin, 'PUT', '/api/v2/relations/updateIndices', { [r1.uuid]: 9, [randomUUID()]: 2 });
    expectErrorBody(missing, 404, 'NOT_FOUND');
    expect((await data(t.app, admin, 'GET', `/api/v2/relations/${r1.uuid}`)).index).toBe(5);
    expectErrorBody(await call(t.app, admin, 'PUT', '/api/v2/relations/updateIndices', { [r1.uuid]: -1 }), 400);
    expectErrorBody(await call(t.app, admin, 'PUT', '/api/v2/relations/updateIndices', {}), 400);
  });

  it('reads a relation from either object, with its end name, cardinality and navigability', async () => {
    const rel = await aRelation(t.app, admin, company.uuid, person.uuid, { name: 'owner', cardinality: 'MANY_TO_ONE', toName: 'owned' });
    const fromOrigin = await data(t.app, admin, 'GET', `/api/v2/relations/${rel.uuid}/${company.uuid}`);
    expect(fromOrigin).toMatchObject({ side: 'origin', endName: 'owner', cardinalityFromHere: 'MANY_TO_ONE', navigable: true, otherObject: { uuid: person.uuid, name: 'person' } });
    const fromTarget = await data(t.app, admin, 'GET', `/api/v2/relations/${rel.uuid}/${person.uuid}`);
    expect(fromTarget).toMatchObject({ side: 'target', endName: 'owned', cardinalityFromHere: 'ONE_TO_MANY', navigable: false, otherObject: { uuid: company.uuid } });
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/relations/${rel.uuid}/${tag.uuid}`), 404, 'NOT_FOUND');
    const schema = await loadObjectSchema(t.platform.db, admin.companyUuid, 'person');
    expect(schema!.relations.find((r) => r.relationUuid === rel.uuid)).toMatchObject({ side: 'target', endName: 'owned', cardinality: 'ONE_TO_MANY', navigable: false, otherObjectName: 'company_obj' });
  });

  it('soft delete and restore; permanent delete only when soft-deleted (otherwise 409 and the relation stays)', async () => {
    const [a, b] = [await anObject(t.app, admin), await anObject(t.app, admin)];
    const rel = await aRelation(t.app, admin, a.uuid, b.uuid, { name: 'doomed' });
    const refused = await call(t.app, admin, 'DELETE', `/api/v2/relations/${rel.uuid}/permanent`);
    expectErrorBody(refused, 409);
    expect(refused.body.errors[0].correctionSuggestion).toBe('Delete relation doomed first, then delete it permanently');
    expect((await data(t.app, admin, 'GET', `/api/v2/relations/${rel.uuid}`)).deleted).toBe(false);

    expect((await data(t.app, admin, 'DELETE', `/api/v2/relations/${rel.uuid}`)).deleted).toBe(true);
    expect(names(await call(t.app, admin, 'POST', `/api/v2/relations/index/${a.uuid}`))).toEqual([]);
    expect(names(await call(t.app, admin, 'POST', `/api/v2/relations/index/${a.uuid}`, { filters: [{ key: 'deletedAt', operator: 'isnotnull' }] }))).toEqual(['doomed']);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/relations/${a.uuid}`, { name: 'doomed', toObjectUuid: b.uuid, cardinality: 'MANY_TO_MANY' }), 409);
    expect((await data(t.app, admin, 'POST', `/api/v2/relations/${rel.uuid}/restore`)).deleted).toBe(false);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/relations/${rel.uuid}/restore`), 409);

    await data(t.app, admin, 'DELETE', `/api/v2/relations/${rel.uuid}`);
    const purged = await call(t.app, admin, 'DELETE', `/api/v2/relations/${rel.uuid}/permanent`);
    expect(purged.status).toBe(200);
    expect(typeof purged.body.data).toBe('string');
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/relations/${rel.uuid}`), 404, 'NOT_FOUND');
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/relations/${rel.uuid}/restore`), 404);
    expectErrorBody(await call(t.app, admin, 'DELETE', `/api/v2/relations/${rel.uuid}/permanent`), 404);
    // The name is free again.
    expect((await call(t.app, admin, 'POST', `/api/v2/relations/${a.uuid}`, { name: 'doomed', toObjectUuid: b.uuid, cardinality: 'ONE_TO_ONE' })).status).toBe(201);
  });

  it('a linked property must be backed by a live relation of its object', async () => {
    const [a, b, c] = [await anObject(t.app, admin), await anObject(t.app, admin), await anObject(t.app, admin)];
    const rel = await aRelation(t.app, admin, a.uuid, b.uuid);
    const elsewhere = await aRelation(t.app, admin, b.uuid, c.uuid);
    const linked = await aProperty(t.app, admin, b.uuid, { type: 'json', format: 'linked', relationUuid: rel.uuid });
    expect(linked).toMatchObject({ format: 'linked', relationUuid: rel.uuid });
    const notHere = await call(t.app, admin, 'POST', `/api/v2/objects/${a.uuid}/properties`, { name: 'x', label: 'X', type: 'string', format: 'linked', relationUuid: elsewhere.uuid });
    expectErrorBody(notHere, 400, 'RELATION_NOT_ALLOWED');
    await data(t.app, admin, 'DELETE', `/api/v2/relations/${elsewhere.uuid}`);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/objects/${c.uuid}/properties`, { name: 'y', label: 'Y', type: 'string', format: 'linked', relationUuid: elsewhere.uuid }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/objects/${a.uuid}/properties`, { name: 'z', label: 'Z', type: 'string', format: 'text', relationUuid: rel.uuid }), 400);
  });
});

describe('connections', () => {
  const connect = (rel: string, from: string, to: string, body?: unknown) => call(t.app, admin, 'PUT', `/api/v2/relations/${rel}/connection/${from}/${to}`, body);
  const disconnect = (rel: string, from: string, to: string) => call(t.app, admin, 'DELETE', `/api/v2/relations/${rel}/connection/${from}/${to}`);
  const companies = (n: number) => recordsOf('company_obj', n);
  const people = (n: number) => recordsOf('person', n);

  it('enforces ONE_TO_ONE on both ends, and frees an end on disconnect', async () => {
    const rel = await aRelation(t.app, admin, company.uuid, person.uuid, { cardinality: 'ONE_TO_ONE' });
    const [[c1, c2], [p1, p2]] = [await companies(2), await people(2)];
    expect((await connect(rel.uuid, c1!, p1!)).status).toBe(200);
    const twoTargets = await connect(rel.uuid, c1!, p2!);
    expectErrorBody(twoTargets, 409, 'RELATION_NOT_ALLOWED');
    expect(twoTargets.body.errors[0].correctionSuggestion).toContain(`/connection/${c1}/${p1}`);
    expectErrorBody(await connect(rel.uuid, c2!, p1!), 409, 'RELATION_NOT_ALLOWED');
    expect((await connect(rel.uuid, c1!, p1!)).status).toBe(200);
    expect((await disconnect(rel.uuid, c1!, p1!)).status).toBe(200);
    expectErrorBody(await disconnect(rel.uuid, c1!, p1!), 404, 'NOT_FOUND');
    expect((await connect(rel.uuid, c1!, p2!)).status).toBe(200);
    expect((await connect(rel.uuid, c2!, p1!)).status).toBe(200);
  });

  it('enforces ONE_TO_MANY and MANY_TO_ONE on the single end only; MANY_TO_MANY not at all', async () => {
    const oneToMany = await aRelation(t.app, admin, company.uuid, person.uuid, { cardinality: 'ONE_TO_MANY' });
    const manyToOne = await aRelation(t.app, admin, company.uuid, person.uuid, { cardinality: 'MANY_TO_ONE' });
    const manyToMany = await aRelation(t.app, admin, company.uuid, person.uuid, { cardinality: 'MANY_TO_MANY' });
    const [[c1, c2], [p1, p2]] = [await companies(2), await people(2)];
    // ONE_TO_MANY: a company has many people; a person has one company.
    expect((await connect(oneToMany.uuid, c1!, p1!)).status).toBe(200);
    expect((await connect(oneToMany.uuid, c1!, p2!)).status).toBe(200);
    expectErrorBody(await connect(oneToMany.uuid, c2!, p1!), 409, 'RELATION_NOT_ALLOWED');
    // MANY_TO_ONE: a company has one person; a person has many companies.
    expect((await connect(manyToOne.uuid, c1!, p1!)).status).toBe(200);
    expect((await connect(manyToOne.uuid, c2!, p1!)).status).toBe(200);
    expectErrorBody(await connect(manyToOne.uuid, c1!, p2!), 409, 'RELATION_NOT_ALLOWED');
    for (const [c, p] of [[c1, p1], [c1, p2], [c2, p1], [c2, p2]]) expect((await connect(manyToMany.uuid, c!, p!)).status).toBe(200);
  });

  it('decides racing connections atomically: of two that break ONE_TO_ONE, exactly one wins', async () => {
    const rel = await aRelation(t.app, admin, company.uuid, person.uuid, { cardinality: 'ONE_TO_ONE' });
    for (let round = 0; round < 5; round++) {
      const [[c], [p1, p2, p3]] = [await companies(1), await people(3)];
      const results = await Promise.all([connect(rel.uuid, c!, p1!), connect(rel.uuid, c!, p2!), connect(rel.uuid, c!, p3!)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      expect((await linksOfRecords(t.platform.db, admin.companyUuid, [c!])).length).toBe(1);
    }
  });

  it('carries edge properties, checked against the relation; connecting again replaces them', async () => {
    const rel = await aRelation(t.app, admin, company.uuid, person.uuid, {
      edgeProperties: [{ name: 'since', type: 'date', required: true }, { name: 'role', type: 'string' }, { name: 'hours', type: 'number' }],
    });
    const [[c, c2], [p]] = [await companies(2), await people(1)];
    const first = await connect(rel.uuid, c!, p!, { edgeProperties: { since: '2024-02-01', role: 'CTO' } });
    expect(first.body.data).toMatchObject({ relationUuid: rel.uuid, fromRecordUuid: c, toRecordUuid: p, edgeProperties: { since: '2024-02-01', role: 'CTO' } });
    const second = await connect(rel.uuid, c!, p!, { edgeProperties: { since: '2024-02-01', hours: 20 } });
    expect(second.body.data.edgeProperties).toEqual({ since: '2024-02-01', hours: 20 });
    expect(second.body.data.revision).toBe(first.body.data.revision + 1);
    expect((await connect(rel.uuid, c!, p!, { edgeProperties: { hours: 20, since: '2024-02-01' } })).body.data.revision).toBe(second.body.data.revision);
    expectErrorBody(await connect(rel.uuid, c!, p!, { edgeProperties: { since: '2024-02-01', colour: 'red' } }), 400);
    expectErrorBody(await connect(rel.uuid, c!, p!, { edgeProperties: { since: 'yesterday' } }), 400, 'INVALID_DATE');
    expectErrorBody(await connect(rel.uuid, c!, p!, { edgeProperties: { since: '2024-02-01', hours: 'many' } }), 400, 'INVALID_VALUE');
    expectErrorBody(await connect(rel.uuid, c2!, p!, {}), 400);
    const plain = await aRelation(t.app, admin, company.uuid, person.uuid);
    expect((await connect(plain.uuid, c!, p!)).status).toBe(200);
    expectErrorBody(await connect(plain.uuid, c!, p!, { edgeProperties: { any: 1 } }), 400);
    expectErrorBody(await connect(plain.uuid, 'not-a-uuid', p!), 400);
  });

  it('hides connections while the relation is soft-deleted, brings them back on restore, drops them on permanent delete', async () => {
    const rel = await aRelation(t.app, admin, company.uuid, person.uuid, { cardinality: 'ONE_TO_ONE' });
    const [[c], [p]] = [await companies(1), await people(1)];
    await connect(rel.uuid, c!, p!);
    const links = () => linksOfRecords(t.platform.db, admin.companyUuid, [c!, p!]);
    expect(await links()).toHaveLength(1);
    await data(t.app, admin, 'DELETE', `/api/v2/relations/${rel.uuid}`);
    expect(await links()).toHaveLength(0);
    expectErrorBody(await connect(rel.uuid, c!, randomUUID()), 409);
    await data(t.app, admin, 'POST', `/api/v2/relations/${rel.uuid}/restore`);
    expect((await links())[0]).toMatchObject({ relation_uuid: rel.uuid, from_record: c, to_record: p });
    await data(t.app, admin, 'DELETE', `/api/v2/relations/${rel.uuid}`);
    await data(t.app, admin, 'DELETE', `/api/v2/relations/${rel.uuid}/permanent`);
    expect(await t.platform.db.query('select * from rm_record_links where relation_uuid = $1', [rel.uuid])).toEqual([]);
    expectErrorBody(await connect(rel.uuid, c!, p!), 404);
  });

  it('connects only live records of the relation\'s objects: origin record first, target record second', async () => {
    const rel = await aRelation(t.app, admin, company.uuid, person.uuid);
    const [[c], [p], [x]] = [await companies(1), await people(1), await recordsOf('tag', 1)];
    expectErrorBody(await connect(rel.uuid, p!, c!), 404, 'NOT_FOUND');
    expectErrorBody(await connect(rel.uuid, c!, x!), 404, 'NOT_FOUND');
    expectErrorBody(await connect(rel.uuid, c!, randomUUID()), 404, 'NOT_FOUND');
    await data(t.app, admin, 'DELETE', `/api/v2/person/${p}`);
    expectErrorBody(await connect(rel.uuid, c!, p!), 404, 'NOT_FOUND');
    await data(t.app, admin, 'POST', `/api/v2/person/${p}/restore`);
    expect((await connect(rel.uuid, c!, p!)).status).toBe(200);
  });

  it('checks both records through the record port', async () => {
    const rel = await aRelation(t.app, admin, company.uuid, person.uuid);
    const known = new Set<string>([randomUUID(), randomUUID()]);
    const [c, p] = [...known];
    const seen: string[] = [];
    const connections = makeConnectionsService({
      db: t.platform.db,
      store: t.platform.store,
      recordExists: async (_tenant, objectUuid, recordUuid) => {
        seen.push(objectUuid);
        return known.has(recordUuid);
      },
    });
    const ctx = { tenant: admin.companyUuid, userUuid: admin.userUuid, requestId: 'port-test', now: Date.now() };
    await expect(connections.connect(ctx, rel.uuid, c!, randomUUID(), {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(connections.connect(ctx, rel.uuid, randomUUID(), p!, {})).rejects.toBeInstanceOf(DomainError);
    expect((await connections.connect(ctx, rel.uuid, c!, p!, {})).to_record).toBe(p);
    expect(seen).toContain(company.uuid);
    expect(seen).toContain(person.uuid);
  });
});

describe('authorization and tenancy', () => {
  it('members read and connect; changing relations needs ADMIN or schema:write', async () => {
    const rel = await aRelation(t.app, admin, company.uuid, person.uuid);
    const user = await joinCompany(t.app, admin, { role: 'USER' });
    const [[c], [p]] = [await recordsOf('company_obj', 1), await recordsOf('person', 1)];
    expect((await call(t.app, user, 'GET', `/api/v2/relations/${rel.uuid}`)).status).toBe(200);
    expect((await call(t.app, user, 'POST', '/api/v2/relations/index')).status).toBe(200);
    expect((await call(t.app, user, 'PUT', `/api/v2/relations/${rel.uuid}/connection/${c}/${p}`)).status).toBe(200);
    for (const [method, url, body] of [
      ['POST', `/api/v2/relations/${company.uuid}`, { name: unique('r'), toObjectUuid: person.uuid, cardinality: 'MANY_TO_MANY' }],
      ['PUT', '/api/v2/relations/updateIndices', { [rel.uuid]: 3 }],
      ['DELETE', `/api/v2/relations/${rel.uuid}`, undefined],
      ['POST', `/api/v2/relations/${rel.uuid}/restore`, undefined],
      ['DELETE', `/api/v2/relations/${rel.uuid}/permanent`, undefined],
    ] as const) {
      const res = await call(t.app, user, method, url, body);
      expectErrorBody(res, 403);
      expect(res.body.scopes).toEqual(['schema:write']);
    }
    expectErrorBody(await call(t.app, null, 'GET', `/api/v2/relations/${rel.uuid}`), 401);
  });

  it("another company's relation and objects answer 404", async () => {
    const [a, b] = await twoTenants(t.app);
    const [x, y] = [await anObject(t.app, a), await anObject(t.app, a)];
    const rel = await aRelation(t.app, a, x.uuid, y.uuid, { cardinality: 'ONE_TO_ONE' });
    const [[r1], [r2]] = [await recordsOf(x.name, 1, a), await recordsOf(y.name, 1, a)];
    await data(t.app, a, 'PUT', `/api/v2/relations/${rel.uuid}/connection/${r1}/${r2}`);
    const r = `/api/v2/relations/${rel.uuid}`;
    for (const [method, url, body] of [
      ['GET', r, undefined],
      ['GET', `${r}/${x.uuid}`, undefined],
      ['DELETE', r, undefined],
      ['POST', `${r}/restore`, undefined],
      ['DELETE', `${r}/permanent`, undefined],
      ['PUT', `${r}/connection/${r1}/${randomUUID()}`, undefined],
      ['DELETE', `${r}/connection/${r1}/${r2}`, undefined],
      ['PUT', '/api/v2/relations/updateIndices', { [rel.uuid]: 7 }],
      ['POST', `/api/v2/relations/${x.uuid}`, { name: rel.name, toObjectUuid: y.uuid, cardinality: 'ONE_TO_ONE', label: 'stolen' }],
      ['POST', `/api/v2/relations/index/${x.uuid}`, undefined],
      ['POST', `/api/v2/relations/index/${x.uuid}/${y.uuid}`, undefined],
    ] as const) {
      expectErrorBody(await call(t.app, b, method, url, body), 404, 'NOT_FOUND');
    }
    const own = await anObject(t.app, b);
    expectErrorBody(await call(t.app, b, 'POST', `/api/v2/relations/${own.uuid}`, { name: 'cross', toObjectUuid: x.uuid, cardinality: 'MANY_TO_MANY' }), 400, 'INVALID_VALUE');
    expect((await call(t.app, b, 'POST', '/api/v2/relations/index')).body.total).toBe(0);
    expect(await data(t.app, a, 'GET', r)).toMatchObject({ label: rel.label, index: 0, deleted: false });
    expect(await linksOfRecords(t.platform.db, a.companyUuid, [r1])).toHaveLength(1);
  });
});
