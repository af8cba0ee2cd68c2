import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/webhook-receiver.js';
import { aRecord, anObjectWith, call, data } from '../records/records-fixtures.js';
import { aRelation } from '../schema/schema-fixtures.js';
import { reactorPassed } from '../support/reactor-wait.js';

let t: TestApp;
let owner: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  owner = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

const get = (objectName: string, uuid: string) => data(t.app, owner, 'GET', `/api/v2/${objectName}/${uuid}`);
const history = async (uuid: string) => (await call(t.app, owner, 'GET', `/api/v2/records/${uuid}/history?limit=100`)).body.data as { revision: number; type: string; causationId: string | null; changes: Record<string, { before: unknown; after: unknown }> }[];
const settle = () => new Promise((r) => setTimeout(r, 600));

/** An account object and a contact object (email and tier on both), connected by a relation. */
async function pair() {
  const account = await anObjectWith(t.app, owner, { email: { type: 'string', format: 'email' }, tier: { type: 'string', format: 'text' }, note: { type: 'string', format: 'text' } });
  const contact = await anObjectWith(t.app, owner, { accountEmail: { type: 'string', format: 'email' }, accountTier: { type: 'string', format: 'text' } });
  const relation = await aRelation(t.app, owner, account.uuid, contact.uuid, { cardinality: 'ONE_TO_MANY' });
  return { account, contact, relation };
}

describe('syncs', () => {
  it('copies the mapped values on connect and on update, with the source event as cause', async () => {
    const { account, contact, relation } = await pair();
    await data(t.app, owner, 'POST', '/api/v2/sync', {
      sourceObjectUuid: account.uuid,
      targetObjectUuid: contact.uuid,
      relationUuid: relation.uuid,
      mappings: [{ source: 'email', target: 'accountEmail' }, { source: 'tier', target: 'accountTier' }],
    });
    const acme = await aRecord(t.app, owner, account.name, { email: 'ops@acme.test', tier: 'gold', note: 'n' });
    const ann = await aRecord(t.app, owner, contact.name, {});
    const bob = await aRecord(t.app, owner, contact.name, { accountTier: 'stale' });
    // Had the reactor seen acme's create after the connects, that create would be the copies' cause.
    await reactorPassed(t, 'reactor:syncs', [acme, ann, bob].map((r) => `record-${r.uuid}`));
    await data(t.app, owner, 'PUT', `/api/v2/relations/${relation.uuid}/connection/${acme.uuid}/${ann.uuid}`, {});
    await data(t.app, owner, 'PUT', `/api/v2/relations/${relation.uuid}/connection/${acme.uuid}/${bob.uuid}`, {});
    for (const who of [ann, bob]) {
      await waitFor(async () => (await get(contact.name, who.uuid)).properties.accountTier === 'gold', 5_000, 'copied on connect');
      expect((await get(contact.name, who.uuid)).properties).toMatchObject({ accountEmail: 'ops@acme.test', accountTier: 'gold' });
    }

    await data(t.app, owner, 'PUT', `/api/v2/${account.name}/${acme.uuid}`, { properties: { tier: 'platinum' } });
    await data(t.app, owner, 'PUT', `/api/v2/${account.name}/${acme.uuid}`, { properties: { note: 'not mapped' } });
    for (const who of [ann, bob]) await waitFor(async () => (await get(contact.name, who.uuid)).properties.accountTier === 'platinum', 5_000, 'copied on update');
    await settle();

    const acmeHistory = await history(acme.uuid);
    const tierChange = acmeHistory.find((h) => h.changes.tier?.after === 'platinum')!;
    const annHistory = await history(ann.uuid);
    // created, the connect copy, the update copy; nothing for the unmapped note.
    expect(annHistory.map((h) => h.type)).toEqual(['RecordUpdated', 'RecordUpdated', 'RecordCreated']);
    expect(annHistory[0]).toMatchObject({ causationId: `record-${acme.uuid}@${tierChange.revision}`, changes: { accountTier: { before: 'gold', after: 'platinum' } } });
    expect(annHistory[1]!.causationId).toMatch(/^link-/);
    expect(annHistory[1]!.changes).toEqual({ accountEmail: { before: null, after: 'ops@acme.test' }, accountTier: { before: null, after: 'gold' } });
    // Only values that differ are written.
    expect((await history(bob.uuid))[1]!.changes).toEqual({ accountEmail: { before: null, after: 'ops@acme.test' }, accountTier: { before: 'stale', after: 'gold' } });
  });

  it('a two-way sync pair settles instead of looping', async () => {
    const { account, contact, relation } = await pair();
    await data(t.app, owner, 'POST', '/api/v2/sync', { sourceObjectUuid: account.uuid, targetObjectUuid: contact.uuid, relationUuid: relation.uuid, mappings: [{ source: 'email', target: 'accountEmail' }] });
    await data(t.app, owner, 'POST', '/api/v2/sync', { sourceObjectUuid: contact.uuid, targetObjectUuid: account.uuid, relationUuid: relation.uuid, mappings: [{ source: 'accountEmail', target: 'email' }] });
    const a = await aRecord(t.app, owner, account.name, { email: 'first@a.test' });
    const c = await aRecord(t.app, owner, contact.name, {});
    await data(t.app, owner, 'PUT', `/api/v2/relations/${relation.uuid}/connection/${a.uuid}/${c.uuid}`, {});
    await waitFor(async () => (await get(contact.name, c.uuid)).properties.accountEmail === 'first@a.test', 5_000, 'A -> B on connect');

    await data(t.app, owner, 'PUT', `/api/v2/${account.name}/${a.uuid}`, { properties: { email: 'second@a.test' } });
    await waitFor(async () => (await get(contact.name, c.uuid)).properties.accountEmail === 'second@a.test', 5_000, 'A -> B on update');
    await data(t.app, owner, 'PUT', `/api/v2/${contact.name}/${c.uuid}`, { properties: { accountEmail: 'third@c.test' } });
    await waitFor(async () => (await get(account.name, a.uuid)).properties.email === 'third@c.test', 5_000, 'B -> A on update');
    await settle();
    const revisions = async () => [(await get(account.name, a.uuid)).revision, (await get(contact.name, c.uuid)).revision];
    const settled = await revisions();
    await settle();
    expect(await revisions()).toEqual(settled);
    // A: created, user update, sync copy from B. B: created, copy on connect, copy of A's update, user update.
    expect((await history(a.uuid)).map((h) => [h.type, h.causationId === null])).toEqual([
      ['RecordUpdated', false],
      ['RecordUpdated', true],
      ['RecordCreated', true],
    ]);
    expect((await history(c.uuid)).map((h) => [h.type, h.causationId === null])).toEqual([
      ['RecordUpdated', true],
      ['RecordUpdated', false],
      ['RecordUpdated', false],
      ['RecordCreated', true],
    ]);
    expect(settled).toEqual([2, 3]);
  });

  it('A -> B -> A stops at A by the causation chain, even where the values differ', async () => {
    const { account, contact, relation } = await pair();
    await data(t.app, owner, 'POST', '/api/v2/sync', { sourceObjectUuid: account.uuid, targetObjectUuid: contact.uuid, relationUuid: relation.uuid, mappings: [{ source: 'email', target: 'accountEmail' }] });
    // Back to A, but into another property: only the chain rule keeps A from being written.
    await data(t.app, owner, 'POST', '/api/v2/sync', { sourceObjectUuid: contact.uuid, targetObjectUuid: account.uuid, relationUuid: relation.uuid, mappings: [{ source: 'accountEmail', target: 'note' }] });
    const a = await aRecord(t.app, owner, account.name, {});
    const c = await aRecord(t.app, owner, contact.name, { accountEmail: 'own@c.test' });
    await data(t.app, owner, 'PUT', `/api/v2/relations/${relation.uuid}/connection/${a.uuid}/${c.uuid}`, {});
    // On connect both syncs act on their own source: A gets C's value in note, C gets A's (empty) email.
    await waitFor(async () => (await get(account.name, a.uuid)).properties.note === 'own@c.test', 5_000, 'C -> A on connect');
    await data(t.app, owner, 'PUT', `/api/v2/${account.name}/${a.uuid}`, { properties: { email: 'x@a.test' } });
    await waitFor(async () => (await get(contact.name, c.uuid)).properties.accountEmail === 'x@a.test', 5_000, 'A -> C');
    await settle();
    expect((await get(account.name, a.uuid)).properties).toMatchObject({ email: 'x@a.test', note: 'own@c.test' });
    const last = (await history(c.uuid))[0]!;
    expect(last.causationId).toMatch(new RegExp(`^record-${a.uuid}@`));
    expect((await history(a.uuid))[0]).toMatchObject({ causationId: null, changes: { email: { before: null, after: 'x@a.test' } } });
  });

  it('a copy that arrives late never overwrites a newer value of the target; the reactor catches up after a stop', async () => {
    const { account, contact, relation } = await pair();
    await data(t.app, owner, 'POST', '/api/v2/sync', {
      sourceObjectUuid: account.uuid,
      targetObjectUuid: contact.uuid,
      relationUuid: relation.uuid,
      mappings: [{ source: 'email', target: 'accountEmail' }, { source: 'tier', target: 'accountTier' }],
    });
    const a = await aRecord(t.app, owner, account.name, { email: 'old@a.test', tier: 'gold' });
    const c = await aRecord(t.app, owner, contact.name, {});
    await data(t.app, owner, 'PUT', `/api/v2/relations/${relation.uuid}/connection/${a.uuid}/${c.uuid}`, {});
    await waitFor(async () => (await get(contact.name, c.uuid)).properties.accountEmail === 'old@a.test', 5_000, 'copy on connect');

    await t.app.syncRuntime.stop();
    await data(t.app, owner, 'PUT', `/api/v2/${account.name}/${a.uuid}`, { properties: { email: 'new@a.test', tier: 'platinum' } });
    await new Promise((r) => setTimeout(r, 5));
    // Someone edits the target's accountEmail after the source changed, while the reactor is stopped.
    await data(t.app, owner, 'PUT', `/api/v2/${contact.name}/${c.uuid}`, { properties: { accountEmail: 'edited@c.test' } });
    t.app.syncRuntime.start();
    await waitFor(async () => (await get(contact.name, c.uuid)).properties.accountTier === 'platinum', 5_000, 'tier copied after the restart');
    await settle();
    expect((await get(contact.name, c.uuid)).properties).toMatchObject({ accountEmail: 'edited@c.test', accountTier: 'platinum' });
  });

  it('a disabled or deleted sync writes nothing; another company never sees the writes', async () => {
    const { account, contact, relation } = await pair();
    const sync = await data(t.app, owner, 'POST', '/api/v2/sync', { sourceObjectUuid: account.uuid, targetObjectUuid: contact.uuid, relationUuid: relation.uuid, mappings: [{ source: 'tier', target: 'accountTier' }], enabled: false });
    const a = await aRecord(t.app, owner, account.name, { tier: 'silver' });
    const c = await aRecord(t.app, owner, contact.name, {});
    await data(t.app, owner, 'PUT', `/api/v2/relations/${relation.uuid}/connection/${a.uuid}/${c.uuid}`, {});
    await settle();
    expect((await get(contact.name, c.uuid)).properties.accountTier).toBeNull();
    await data(t.app, owner, 'PUT', `/api/v2/sync/${sync.uuid}`, { enabled: true });
    await data(t.app, owner, 'PUT', `/api/v2/${account.name}/${a.uuid}`, { properties: { tier: 'gold' } });
    await waitFor(async () => (await get(contact.name, c.uuid)).properties.accountTier === 'gold', 5_000, 'enabled sync copies');
    await data(t.app, owner, 'DELETE', `/api/v2/sync/${sync.uuid}`);
    await data(t.app, owner, 'PUT', `/api/v2/${account.name}/${a.uuid}`, { properties: { tier: 'bronze' } });
    await settle();
    expect((await get(contact.name, c.uuid)).properties.accountTier).toBe('gold');
    const other = await signUpWithCompany(t.app);
    expect((await call(t.app, other, 'GET', `/api/v2/records/${c.uuid}`)).status).toBe(404);
  });
});
