import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorRecordSchema } from '../../src/http/audit-fields.js';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aProperty, aRelation, anObject, call, data, unique } from '../schema/schema-fixtures.js';

let t: TestApp;
let admin: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  admin = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

/** One resource of each kind that answers audit fields, made by `who`; each as its create answered. */
async function oneOfEach(who: TestTenant) {
  const object = await anObject(t.app, who);
  const property = await aProperty(t.app, who, object.uuid, { name: 'email', type: 'string', format: 'email' });
  const other = await anObject(t.app, who);
  await aProperty(t.app, who, other.uuid, { name: 'mail', type: 'string', format: 'email' });
  const relation = await aRelation(t.app, who, object.uuid, other.uuid);
  return {
    object,
    property,
    relation,
    trait: await data(t.app, who, 'POST', `/api/v2/traits/${object.uuid}/Table`, { columns: [{ property: 'email' }] }),
    record: await data(t.app, who, 'POST', `/api/v2/${object.name}`, { properties: { email: 'a@example.test' } }),
    webhook: await data(t.app, who, 'POST', '/api/v2/webhooks', { url: 'https://hooks.example.com/in', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', topic: `record.${object.name}.created` }),
    sync: await data(t.app, who, 'POST', '/api/v2/sync', { sourceObjectUuid: object.uuid, targetObjectUuid: other.uuid, relationUuid: relation.uuid, mappings: [{ source: 'email', target: 'mail' }] }),
    filter: await data(t.app, who, 'POST', '/api/v2/filters', { name: unique('f'), objectName: object.name, filters: [] }),
    team: await data(t.app, who, 'POST', '/api/v2/teams', { name: unique('team') }),
  };
}

describe('audit fields: one shape on every resource', () => {
  it('createdBy is the same record-like object of the acting user on records, objects, properties, relations, traits, webhooks, syncs, saved filters and teams', async () => {
    const made = await oneOfEach(admin);
    const expected = {
      uuid: admin.userUuid,
      name: 'Test User',
      label: 'Test User',
      deletedAt: null,
      deleted: false,
      complete: true,
      objects: {},
      properties: [
        { icon: 'mail', name: 'email', value: admin.email, type: 'string', label: 'E-mail' },
        { icon: 'user', name: 'firstname', value: 'Test', type: 'string', label: 'First name' },
        { icon: 'user', name: 'lastname', value: 'User', type: 'string', label: 'Last name' },
      ],
      user: { uuid: admin.userUuid, email: admin.email, firstname: 'Test', lastname: 'User', initials: 'TU', scopes: [], filters: {}, role: 'ADMIN', record: null },
    };
    const first = made.record.createdBy;
    expect(actorRecordSchema.strict().parse(first)).toMatchObject(expected);
    for (const [kind, resource] of Object.entries(made)) {
      expect(resource.createdBy, kind).toEqual(first);
      expect(resource.deletedBy, kind).toBeNull();
    }
    expect(made.record.updatedBy).toEqual(first);
    // Never a credential: no hash, no token, no password anywhere in an actor.
    const text = JSON.stringify(first);
    for (const word of ['password', 'hash', 'token', admin.token]) expect(text).not.toContain(word);
    // The same on reads and lists.
    expect((await data(t.app, admin, 'GET', `/api/v2/objects/${made.object.uuid}`)).createdBy).toEqual(first);
    const company = await data(t.app, admin, 'GET', `/api/v2/companies/${admin.companyUuid}`);
    expect(company).toMatchObject({ createdBy: first, deletedBy: null });
    expect((await call(t.app, admin, 'POST', '/api/v2/filters/index', {})).body.data[0].createdBy).toEqual(first);
    expect((await call(t.app, admin, 'POST', `/api/v2/${made.object.name}/index`, { page: 0 })).body.data[0].createdBy).toEqual(first);
  });

  it('deletedBy names who deleted; updatedBy who changed last; null where nobody did', async () => {
    const writer = await joinCompany(t.app, admin, { role: 'ADMIN' });
    const object = await anObject(t.app, admin);
    await aProperty(t.app, admin, object.uuid, { name: 'title' });
    const rec = await data(t.app, admin, 'POST', `/api/v2/${object.name}`, { properties: { title: 'one' } });
    await data(t.app, writer, 'PUT', `/api/v2/${object.name}/${rec.uuid}`, { properties: { title: 'two' } });
    const changed = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`);
    expect(changed.deletedBy).toBeNull();
    expect(changed.createdBy.uuid).toBe(admin.userUuid);
    expect(changed.updatedBy).toMatchObject({ uuid: writer.userUuid, user: { email: writer.email, role: 'ADMIN' } });
    await data(t.app, writer, 'DELETE', `/api/v2/${object.name}/${rec.uuid}`);
    const gone = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`);
    expect(gone.deletedBy).toEqual(changed.updatedBy);
    const history = await call(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}/history`);
    expect(history.body.data.map((e: { user: { uuid: string } }) => e.user.uuid)).toEqual([writer.userUuid, writer.userUuid, admin.userUuid]);
    expect(history.body.data[2].user).toEqual(gone.createdBy);
  });

  it('deletedBy and updatedBy on objects, properties, relations, saved filters, teams, webhooks and syncs name who deleted', async () => {
    const made = await oneOfEach(admin);
    const deleter = await joinCompany(t.app, admin, { role: 'ADMIN' });
    const deletes: [string, string][] = [
      ['sync', `/api/v2/sync/${made.sync.uuid}`],
      ['webhook', `/api/v2/webhooks/${made.webhook.uuid}`],
      ['filter', `/api/v2/filters/${made.filter.uuid}`],
      ['team', `/api/v2/teams/${made.team.uuid}`],
      ['relation', `/api/v2/relations/${made.relation.uuid}`],
      ['property', `/api/v2/objects/${made.object.uuid}/properties/${made.property.uuid}`],
    ];
    for (const [kind, url] of deletes) expect((await call(t.app, deleter, 'DELETE', url)).status, kind).toBe(200);
    const deleted = await data(t.app, admin, 'DELETE', `/api/v2/objects/${made.object.uuid}`);
    expect(deleted.deletedBy.uuid).toBe(admin.userUuid);
    const restoredFilter = await data(t.app, admin, 'PATCH', `/api/v2/filters/${made.filter.uuid}`);
    expect(restoredFilter).toMatchObject({ deletedBy: null, createdBy: { uuid: admin.userUuid }, updatedBy: { uuid: admin.userUuid } });
    const relation = await data(t.app, admin, 'GET', `/api/v2/relations/${made.relation.uuid}`);
    expect(relation).toMatchObject({ createdBy: { uuid: admin.userUuid }, updatedBy: { uuid: deleter.userUuid }, deletedBy: { uuid: deleter.userUuid, user: { role: 'ADMIN' } } });
    const property = await data(t.app, admin, 'GET', `/api/v2/objects/${made.object.uuid}/properties/${made.property.uuid}`);
    expect(property.deletedBy.uuid).toBe(deleter.userUuid);
    const syncs = await call(t.app, admin, 'POST', '/api/v2/sync/index', { filters: [{ key: 'deleted', operator: 'equals', value: true }] });
    expect(syncs.body.data.find((x: { uuid: string }) => x.uuid === made.sync.uuid).deletedBy.uuid).toBe(deleter.userUuid);
  });

  it("the cached actor follows a change of the user's role and team scopes at once", async () => {
    const member = await joinCompany(t.app, admin, { role: 'ADMIN' });
    const object = await anObject(t.app, member);
    await aProperty(t.app, member, object.uuid, { name: 'title' });
    const rec = await data(t.app, member, 'POST', `/api/v2/${object.name}`, { properties: { title: 'x' } });
    expect(rec.createdBy.user).toMatchObject({ role: 'ADMIN', scopes: [] });

    await data(t.app, admin, 'PUT', `/api/v2/companies/${admin.companyUuid}/users/${member.userUuid}`, { role: 'USER', scopes: ['teams:write'] });
    const team = await data(t.app, admin, 'POST', '/api/v2/teams', { name: unique('team'), scopes: ['members:read'] });
    await data(t.app, admin, 'PUT', `/api/v2/teams/${team.uuid}/users/${member.userUuid}`);
    const read = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`);
    expect(read.createdBy.user).toMatchObject({ role: 'USER', scopes: ['members:read', 'teams:write'] });

    // A user who left keeps their name on what they did; role and scopes are gone.
    await data(t.app, admin, 'DELETE', `/api/v2/companies/${admin.companyUuid}/users/${member.userUuid}`);
    const after = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`);
    expect(after.createdBy).toMatchObject({ uuid: member.userUuid, name: 'Test User', user: { email: member.email, role: null, scopes: [] } });
  });

  it('the same user, member of two companies, shows in each the role they hold there', async () => {
    const other = await signUpWithCompany(t.app);
    await data(t.app, other, 'POST', `/api/v2/companies/${other.companyUuid}/users`, { userUuid: admin.userUuid, role: 'USER', scopes: [] });
    const theirs = await anObject(t.app, other);
    const mine = await anObject(t.app, admin);
    const inMine = await data(t.app, admin, 'POST', '/api/v2/filters', { name: unique('f'), objectName: mine.name, filters: [] });
    await data(t.app, admin, 'POST', `/api/v2/auth/companies/${other.companyUuid}/select`);
    try {
      const inTheirs = await data(t.app, admin, 'POST', '/api/v2/filters', { name: unique('f'), objectName: theirs.name, filters: [] });
      expect(inTheirs.createdBy).toMatchObject({ uuid: admin.userUuid, user: { role: 'USER' } });
      expect(inMine.createdBy).toMatchObject({ uuid: admin.userUuid, user: { role: 'ADMIN' } });
    } finally {
      await data(t.app, admin, 'POST', `/api/v2/auth/companies/${admin.companyUuid}/select`);
    }
  });

  it('the OpenAPI document gives every audit field the one Actor schema', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json();
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, unknown> }>;
    expect(Object.keys(schemas.Actor!.properties).sort()).toEqual(
      ['complete', 'createdAt', 'createdByUuid', 'deleted', 'deletedAt', 'deletedByUuid', 'index', 'label', 'name', 'objects', 'properties', 'updatedAt', 'updatedByUuid', 'user', 'uuid'].sort(),
    );
    const refsActor = (s: unknown) => JSON.stringify(s).includes('#/components/schemas/Actor"');
    for (const id of ['Record', 'Company', 'ObjectDefinition', 'Property', 'Relation', 'Trait', 'Webhook', 'Sync', 'SavedFilter', 'Team']) {
      for (const field of ['createdBy', 'updatedBy', 'deletedBy']) expect(refsActor(schemas[id]!.properties[field]), `${id}.${field}`).toBe(true);
    }
  });
});
