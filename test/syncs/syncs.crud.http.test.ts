import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObject, aProperty, aRelation, call, data } from '../schema/schema-fixtures.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { applyProjections } from '../../src/projections/apply.js';
import { webhooksProjection } from '../../projections/webhooks.projection.js';
import { syncsProjection } from '../../projections/syncs.projection.js';

let t: TestApp;
let owner: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

/** A company object and a contact object, connected, each with an email and a number property. */
async function schemaFor(who: TestTenant) {
  const company = await anObject(t.app, who);
  const contact = await anObject(t.app, who);
  await aProperty(t.app, who, company.uuid, { name: 'email', type: 'string', format: 'email' });
  await aProperty(t.app, who, company.uuid, { name: 'score', type: 'number', format: 'number' });
  await aProperty(t.app, who, contact.uuid, { name: 'companyEmail', type: 'string', format: 'email' });
  await aProperty(t.app, who, contact.uuid, { name: 'rank', type: 'number', format: 'number' });
  const relation = await aRelation(t.app, who, company.uuid, contact.uuid);
  return { company, contact, relation };
}

describe('sync CRUD', () => {
  it('creates, reads, lists, updates, deletes and restores', async () => {
    const { company, contact, relation } = await schemaFor(owner);
    const created = await call(t.app, owner, 'POST', '/api/v2/sync', {
      sourceObjectUuid: company.uuid,
      targetObjectUuid: contact.uuid,
      relationUuid: relation.uuid,
      mappings: [{ source: 'email', target: 'companyEmail' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sync = created.body.data;
    expect(sync).toMatchObject({
      sourceObjectUuid: company.uuid,
      sourceObjectName: company.name,
      targetObjectUuid: contact.uuid,
      targetObjectName: contact.name,
      relationUuid: relation.uuid,
      mappings: [{ source: 'email', target: 'companyEmail' }],
      enabled: true,
      name: `${company.name}_to_${contact.name}`,
      deletedAt: null,
      createdBy: { uuid: owner.userUuid },
      revision: 0,
    });
    expect(await data(t.app, owner, 'GET', `/api/v2/sync/${sync.uuid}`)).toEqual(sync);

    const updated = await data(t.app, owner, 'PUT', `/api/v2/sync/${sync.uuid}`, { mappings: [{ source: 'email', target: 'companyEmail' }, { source: 'score', target: 'rank' }], enabled: false });
    expect(updated).toMatchObject({ enabled: false, revision: 1, mappings: [{ source: 'email', target: 'companyEmail' }, { source: 'score', target: 'rank' }] });

    const list = await call(t.app, owner, 'POST', '/api/v2/sync/index', {});
    expect(list.body).toMatchObject({ total: 1, page: 0 });
    expect(list.body.data[0].uuid).toBe(sync.uuid);

    expect((await call(t.app, owner, 'DELETE', `/api/v2/sync/${sync.uuid}`)).body.data).toBe('deleted');
    expect((await call(t.app, owner, 'GET', `/api/v2/sync/${sync.uuid}`)).status).toBe(404);
    expect((await call(t.app, owner, 'POST', '/api/v2/sync/index', {})).body.total).toBe(0);
    const deleted = await call(t.app, owner, 'POST', '/api/v2/sync/index', { filters: [{ key: 'deleted', operator: 'equals', value: true }] });
    expect(deleted.body.data.map((s: { uuid: string }) => s.uuid)).toEqual([sync.uuid]);

    const restored = await call(t.app, owner, 'POST', `/api/v2/sync/${sync.uuid}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.data).toMatchObject({ uuid: sync.uuid, deletedAt: null, enabled: false });
    // Restoring a live sync: 409 with the error body (only a deleted sync can be restored), as records, forms and views answer.
    const again = await call(t.app, owner, 'POST', `/api/v2/sync/${sync.uuid}/restore`);
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ type: 'GENERAL', correctionSuggestion: 'Only a deleted sync can be restored' });
  });

  it('checks the mapping against the schema, naming each problem', async () => {
    const { company, contact, relation } = await schemaFor(owner);
    const unrelated = await anObject(t.app, owner);
    const missing = await call(t.app, owner, 'POST', '/api/v2/sync', { mappings: [{ source: 'a', target: 'b' }] });
    expect(missing.status).toBe(400);
    const text = missing.body.errors.map((e: { message: string }) => e.message).join('\n');
    expect(text).toMatch(/sourceObjectUuid/);
    expect(text).toMatch(/targetObjectUuid/);
    expect(text).toMatch(/relationUuid/);

    const bad = await call(t.app, owner, 'POST', '/api/v2/sync', {
      sourceObjectUuid: company.uuid,
      targetObjectUuid: contact.uuid,
      relationUuid: relation.uuid,
      mappings: [{ source: 'nope', target: 'companyEmail' }, { source: 'email', target: 'rank' }, { source: 'score', target: 'rank' }, { source: 'score', target: 'rank' }],
    });
    expect(bad.status).toBe(400);
    const messages = bad.body.errors.map((e: { message: string }) => e.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/mappings\.0\.source: .* has no property nope/),
        expect.stringMatching(/mappings\.1: email \(string\) cannot be copied to rank \(number\)/),
        expect.stringMatching(/mappings\.3\.target: rank is mapped twice/),
      ]),
    );

    const wrongRelation = await call(t.app, owner, 'POST', '/api/v2/sync', {
      sourceObjectUuid: company.uuid,
      targetObjectUuid: unrelated.uuid,
      relationUuid: relation.uuid,
      mappings: [{ source: 'email', target: 'email' }],
    });
    expect(wrongRelation.status).toBe(400);
    expect(wrongRelation.body.errors.map((e: { type: string }) => e.type)).toContain('RELATION_NOT_ALLOWED');
  });

  it("another company's sync answers 404 on read, update, delete and restore; its objects are unknown here", async () => {
    const [a, b] = await twoTenants(t.app);
    const { company, contact, relation } = await schemaFor(a);
    const sync = await data(t.app, a, 'POST', '/api/v2/sync', { sourceObjectUuid: company.uuid, targetObjectUuid: contact.uuid, relationUuid: relation.uuid, mappings: [{ source: 'email', target: 'companyEmail' }] });
    for (const [method, url, body] of [
      ['GET', `/api/v2/sync/${sync.uuid}`, undefined],
      ['PUT', `/api/v2/sync/${sync.uuid}`, { enabled: false }],
      ['DELETE', `/api/v2/sync/${sync.uuid}`, undefined],
      ['POST', `/api/v2/sync/${sync.uuid}/restore`, undefined],
    ] as const) {
      const res = await call(t.app, b, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    expect((await call(t.app, b, 'POST', '/api/v2/sync/index', {})).body.total).toBe(0);
    const theirs = await call(t.app, b, 'POST', '/api/v2/sync', { sourceObjectUuid: company.uuid, targetObjectUuid: contact.uuid, relationUuid: relation.uuid, mappings: [{ source: 'email', target: 'companyEmail' }] });
    expect(theirs.status).toBe(400);
    expect(theirs.body.errors.map((e: { type: string }) => e.type)).toEqual(['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND']);
  });
});

describe('rebuild of rm_webhooks and rm_syncs', () => {
  it('replaying the log gives the same rows; replaying it twice changes nothing; secrets survive', async () => {
    const who = await signUpWithCompany(t.app);
    const { company, contact, relation } = await schemaFor(who);
    const s1 = await data(t.app, who, 'POST', '/api/v2/sync', { sourceObjectUuid: company.uuid, targetObjectUuid: contact.uuid, relationUuid: relation.uuid, mappings: [{ source: 'email', target: 'companyEmail' }] });
    const s2 = await data(t.app, who, 'POST', '/api/v2/sync', { sourceObjectUuid: company.uuid, targetObjectUuid: contact.uuid, relationUuid: relation.uuid, mappings: [{ source: 'score', target: 'rank' }], name: 'second' });
    await data(t.app, who, 'PUT', `/api/v2/sync/${s1.uuid}`, { enabled: false, label: 'Changed' });
    await data(t.app, who, 'DELETE', `/api/v2/sync/${s2.uuid}`);
    const w1 = await data(t.app, who, 'POST', '/api/v2/webhooks', { url: 'https://93.184.216.34/a', secret: 'rebuild-secret-1', topic: `record.${company.name}.all`, filter: { groups: [{ items: [{ property: 'score', operator: 'GTE', value: 3 }] }] } });
    const w2 = await data(t.app, who, 'POST', '/api/v2/webhooks', { url: 'https://93.184.216.34/b', secret: 'rebuild-secret-2', topic: 'RelationCreated' });
    await data(t.app, who, 'PUT', `/api/v2/webhooks/${w1.uuid}`, { maxRetries: 1, secret: 'rebuild-secret-3' });
    await data(t.app, who, 'DELETE', `/api/v2/webhooks/${w2.uuid}`);

    const rows = async () => ({
      webhooks: await t.platform.db.query('select * from rm_webhooks order by tenant, webhook_uuid'),
      syncs: await t.platform.db.query('select * from rm_syncs order by tenant, sync_uuid'),
      secrets: await t.platform.db.query('select * from webhook_secrets order by tenant, webhook_uuid'),
    });
    const live = await rows();
    expect(live.webhooks.length).toBeGreaterThanOrEqual(2);
    expect(live.syncs.length).toBeGreaterThanOrEqual(2);
    const projections = [webhooksProjection, syncsProjection];
    await rebuildReadModels(t.platform.db, t.platform.store, projections);
    expect(await rows()).toEqual(live);
    // Every event applied a second time: idempotent.
    const all = await t.platform.store.readAll({ maxCount: 100_000 });
    await t.platform.db.transaction((tx) => applyProjections(projections, all, tx));
    expect(await rows()).toEqual(live);
    const [secret] = await t.platform.db.query<{ secret: string }>('select secret from webhook_secrets where webhook_uuid = $1', [w1.uuid]);
    expect(secret!.secret).toBe('rebuild-secret-3');
  });
});

