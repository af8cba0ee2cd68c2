import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadObjectSchema } from '../../read-models/schema.queries.js';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aProperty, aRelation, anObject, call, data, expectErrorBody } from './schema-fixtures.js';

let t: TestApp;
let admin: TestTenant;
let deal: { uuid: string; name: string };
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUpWithCompany(t.app);
  deal = await anObject(t.app, admin, { name: 'deal' });
  await aProperty(t.app, admin, deal.uuid, { name: 'stage', type: 'string', format: 'select', options: [{ value: 'lead', label: 'Lead' }, { value: 'won', label: 'Won' }, { value: 'lost', label: 'Lost' }] });
  await aProperty(t.app, admin, deal.uuid, { name: 'title', type: 'string', format: 'text' });
  await aProperty(t.app, admin, deal.uuid, { name: 'amount', type: 'number', format: 'currency' });
  await aProperty(t.app, admin, deal.uuid, { name: 'contact_email', type: 'string', format: 'email' });
});
afterAll(async () => t.close());

const traitUrl = (objectUuid: string, name = '') => `/api/v2/traits/${objectUuid}${name ? `/${name}` : ''}`;

describe('traits', () => {
  it('Flow: stage property and stage order; created (201), then updated (200), read and deleted', async () => {
    expectErrorBody(await call(t.app, admin, 'GET', traitUrl(deal.uuid, 'Flow')), 404, 'NOT_FOUND');
    const created = await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Flow'), { stageProperty: 'stage' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ objectUuid: deal.uuid, traitName: 'Flow', details: { stageProperty: 'stage', stages: ['lead', 'won', 'lost'] } });
    const updated = await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'flow'), { stageProperty: 'stage', stages: ['won', 'lead'] });
    expect(updated.status).toBe(200);
    expect(updated.body.data.details.stages).toEqual(['won', 'lead']);
    expect((await data(t.app, admin, 'GET', traitUrl(deal.uuid, 'FLOW'))).details).toEqual({ stageProperty: 'stage', stages: ['won', 'lead'] });

    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Flow'), { stageProperty: 'title' }), 400, 'INVALID_VALUE');
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Flow'), { stageProperty: 'nope' }), 400, 'INVALID_VALUE');
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Flow'), { stageProperty: 'stage', stages: ['lead', 'open'] }), 400, 'INVALID_VALUE');
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Flow'), {}), 400);
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Flow'), { stageProperty: 'stage', colour: 'red' }), 400);

    const removed = await call(t.app, admin, 'DELETE', traitUrl(deal.uuid, 'Flow'));
    expect(removed.status).toBe(200);
    expect(typeof removed.body.data).toBe('string');
    expectErrorBody(await call(t.app, admin, 'GET', traitUrl(deal.uuid, 'Flow')), 404, 'NOT_FOUND');
    expectErrorBody(await call(t.app, admin, 'DELETE', traitUrl(deal.uuid, 'Flow')), 404, 'NOT_FOUND');
    expect((await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Flow'), { stageProperty: 'stage' })).status).toBe(201);
  });

  it('Table: columns of properties or built-in fields, widths, default sort', async () => {
    const table = await data(t.app, admin, 'POST', traitUrl(deal.uuid, 'Table'), {
      columns: [{ property: 'name' }, { property: 'title', width: 240 }, { property: 'amount', width: 120 }],
      defaultSort: { property: 'amount', direction: 'desc' },
    });
    expect(table.details.columns).toHaveLength(3);
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Table'), { columns: [{ property: 'ghost' }] }), 400, 'INVALID_VALUE');
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Table'), { columns: [{ property: 'title', width: 5 }] }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Table'), { columns: [] }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Table'), { columns: [{ property: 'title' }], defaultSort: { property: 'ghost', direction: 'asc' } }), 400);
  });

  it('Page (alias Webpage) and User; one User object per company', async () => {
    expect((await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Webpage'), { titleProperty: 'title', pathPrefix: 'deals' })).body.data.traitName).toBe('Page');
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Page'), { titleProperty: 'amount' }), 400, 'INVALID_VALUE');
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'Page'), { pathPrefix: 'Not A Slug' }), 400);

    const member = await anObject(t.app, admin, { name: 'member' });
    await aProperty(t.app, admin, member.uuid, { name: 'email', type: 'string', format: 'email' });
    expect((await call(t.app, admin, 'POST', traitUrl(member.uuid, 'User'), { emailProperty: 'email' })).status).toBe(201);
    const second = await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'User'), {});
    expectErrorBody(second, 409);
    expect(second.body.message).toContain('member');
    expect((await call(t.app, admin, 'POST', traitUrl(member.uuid, 'User'), {})).status).toBe(200);
    await data(t.app, admin, 'DELETE', traitUrl(member.uuid, 'User'));
    expect((await call(t.app, admin, 'POST', traitUrl(deal.uuid, 'User'), { emailProperty: 'contact_email' })).status).toBe(201);
    expectErrorBody(await call(t.app, admin, 'GET', traitUrl(deal.uuid, 'Kanban')), 400, 'INVALID_VALUE');
  });

  it('lists traits: pages from 0 (0 by default), at most 100 a page (a larger limit is a 400 naming it), bad paging refused with the error body', async () => {
    const obj = await anObject(t.app, admin);
    await aProperty(t.app, admin, obj.uuid, { name: 'state', type: 'string', format: 'select', options: [{ value: 'a', label: 'A' }] });
    await data(t.app, admin, 'POST', traitUrl(obj.uuid, 'Flow'), { stageProperty: 'state' });
    await data(t.app, admin, 'POST', traitUrl(obj.uuid, 'Table'), { columns: [{ property: 'state' }] });
    await data(t.app, admin, 'POST', traitUrl(obj.uuid, 'Page'), {});
    const all = await call(t.app, admin, 'GET', traitUrl(obj.uuid));
    expect(all.body).toMatchObject({ total: 3, page: 0, perPage: 25, lastPage: 0 });
    expect(all.body.data.map((x: { traitName: string }) => x.traitName)).toEqual(['Flow', 'Page', 'Table']);
    expect((await call(t.app, admin, 'GET', `${traitUrl(obj.uuid)}?page=0&limit=2`)).body.data.map((x: { traitName: string }) => x.traitName)).toEqual(['Flow', 'Page']);
    expect((await call(t.app, admin, 'GET', `${traitUrl(obj.uuid)}?page=1&limit=2`)).body).toMatchObject({ page: 1, perPage: 2, lastPage: 1, data: [{ traitName: 'Table' }] });
    const tooMany = await call(t.app, admin, 'GET', `${traitUrl(obj.uuid)}?limit=1000`);
    expectErrorBody(tooMany, 400, 'INVALID_VALUE');
    expect(JSON.stringify(tooMany.body.errors)).toContain('100');
    expectErrorBody(await call(t.app, admin, 'GET', `${traitUrl(obj.uuid)}?page=-1`), 400);
    expectErrorBody(await call(t.app, admin, 'GET', `${traitUrl(obj.uuid)}?limit=0`), 400);
    expectErrorBody(await call(t.app, admin, 'GET', `${traitUrl(obj.uuid)}?limit=many`), 400);
    expectErrorBody(await call(t.app, admin, 'GET', traitUrl(randomUUID())), 404, 'NOT_FOUND');
  });

  it('the live schema carries traits and relations; a deleted object has no live schema', async () => {
    const other = await anObject(t.app, admin);
    const rel = await aRelation(t.app, admin, deal.uuid, other.uuid, { name: 'partner', cardinality: 'MANY_TO_ONE' });
    const schema = await loadObjectSchema(t.platform.db, admin.companyUuid, 'deal');
    expect(schema!.object).toMatchObject({ uuid: deal.uuid, name: 'deal' });
    expect(Object.keys(schema!.traits).sort()).toEqual(['Flow', 'Page', 'Table', 'User']);
    expect(schema!.relations).toEqual([expect.objectContaining({ relationUuid: rel.uuid, side: 'origin', endName: 'partner', cardinality: 'MANY_TO_ONE', otherObjectUuid: other.uuid })]);
    expect(schema!.properties.map((p) => p.name)).toEqual(['stage', 'title', 'amount', 'contact_email']);
    await data(t.app, admin, 'DELETE', `/api/v2/objects/${other.uuid}`);
    expect((await loadObjectSchema(t.platform.db, admin.companyUuid, 'deal'))!.relations).toEqual([]);
    expect(await loadObjectSchema(t.platform.db, admin.companyUuid, other.name)).toBeNull();
    expectErrorBody(await call(t.app, admin, 'POST', traitUrl(other.uuid, 'Page'), {}), 409);
  });

  it('reading needs membership, changing needs ADMIN or schema:write; 401 without a token', async () => {
    const user = await joinCompany(t.app, admin, { role: 'USER' });
    expect((await call(t.app, user, 'GET', traitUrl(deal.uuid))).status).toBe(200);
    expect((await call(t.app, user, 'GET', traitUrl(deal.uuid, 'Flow'))).status).toBe(200);
    for (const [method, body] of [['POST', { stageProperty: 'stage' }], ['DELETE', undefined]] as const) {
      const res = await call(t.app, user, method, traitUrl(deal.uuid, 'Flow'), body);
      expectErrorBody(res, 403);
      expect(res.body.scopes).toEqual(['schema:write']);
    }
    expectErrorBody(await call(t.app, null, 'GET', traitUrl(deal.uuid)), 401);
  });

  it("another company's object answers 404 on every trait route", async () => {
    const [a, b] = await twoTenants(t.app);
    const obj = await anObject(t.app, a);
    await data(t.app, a, 'POST', traitUrl(obj.uuid, 'Page'), {});
    for (const [method, url, body] of [
      ['GET', traitUrl(obj.uuid), undefined],
      ['GET', traitUrl(obj.uuid, 'Page'), undefined],
      ['POST', traitUrl(obj.uuid, 'Page'), { pathPrefix: 'stolen' }],
      ['DELETE', traitUrl(obj.uuid, 'Page'), undefined],
    ] as const) {
      expectErrorBody(await call(t.app, b, method, url, body), 404, 'NOT_FOUND');
    }
    expect((await data(t.app, a, 'GET', traitUrl(obj.uuid, 'Page'))).details).toEqual({});
  });
});

describe('OpenAPI', () => {
  it('describes every schema route with its body and responses', async () => {
    const doc = (await call(t.app, null, 'GET', '/api/v2/openapi.json')).body;
    const routes: [string, string, boolean][] = [
      ['post', '/api/v2/objects/', true],
      ['post', '/api/v2/objects/index', true],
      ['get', '/api/v2/objects/{uuid}', false],
      ['put', '/api/v2/objects/{uuid}', true],
      ['delete', '/api/v2/objects/{uuid}', false],
      ['post', '/api/v2/objects/{uuid}/restore', false],
      ['post', '/api/v2/objects/{objectUuid}/properties', true],
      ['post', '/api/v2/objects/{objectUuid}/properties/index', true],
      ['get', '/api/v2/objects/{objectUuid}/properties/{propertyUuid}', false],
      ['put', '/api/v2/objects/{objectUuid}/properties/{propertyUuid}', true],
      ['delete', '/api/v2/objects/{objectUuid}/properties/{propertyUuid}', false],
      ['post', '/api/v2/objects/{objectUuid}/properties/{propertyUuid}/restore', false],
      ['put', '/api/v2/relations/updateIndices', true],
      ['post', '/api/v2/relations/index', true],
      ['post', '/api/v2/relations/index/{objectUuid}', true],
      ['post', '/api/v2/relations/index/{fromObjectUuid}/{toObjectUuid}', true],
      ['post', '/api/v2/relations/{objectUuid}', true],
      ['get', '/api/v2/relations/{relationUuid}', false],
      ['get', '/api/v2/relations/{relationUuid}/{objectUuid}', false],
      ['delete', '/api/v2/relations/{relationUuid}', false],
      ['post', '/api/v2/relations/{relationUuid}/restore', false],
      ['delete', '/api/v2/relations/{relationUuid}/permanent', false],
      ['put', '/api/v2/relations/{relationUuid}/connection/{from}/{to}', true],
      ['delete', '/api/v2/relations/{relationUuid}/connection/{from}/{to}', false],
      ['get', '/api/v2/traits/{objectUuid}', false],
      ['get', '/api/v2/traits/{objectUuid}/{traitName}', false],
      ['post', '/api/v2/traits/{objectUuid}/{traitName}', true],
      ['delete', '/api/v2/traits/{objectUuid}/{traitName}', false],
    ];
    const missing: string[] = [];
    for (const [method, path, hasBody] of routes) {
      const op = doc.paths[path]?.[method] ?? doc.paths[path.replace(/\/$/, '')]?.[method];
      if (!op) {
        missing.push(`${method} ${path}`);
        continue;
      }
      const success = op.responses['200'] ?? op.responses['201'];
      expect(success?.content?.['application/json']?.schema, `${method} ${path} response`).toBeDefined();
      expect(op.responses['401'], `${method} ${path} 401`).toBeDefined();
      expect(op.security, `${method} ${path} security`).toEqual([{ bearer: [] }]);
      if (hasBody) expect(op.requestBody?.content?.['application/json']?.schema, `${method} ${path} body`).toBeDefined();
    }
    expect(missing).toEqual([]);
    for (const id of ['ObjectDefinition', 'Property', 'PropertyBody', 'Relation', 'RelationBody', 'RecordConnection', 'Trait', 'FlowTrait', 'TableTrait', 'PageTrait', 'UserTrait']) {
      expect(doc.components.schemas[id], id).toBeDefined();
    }
  });
});
