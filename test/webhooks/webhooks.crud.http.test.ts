import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';

let t: TestApp;
let owner: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

const base = { url: 'https://hooks.example.com/in', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', topic: 'record.contact.created' };

async function create(who: TestTenant, body: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: who.headers, payload: body });
}

describe('webhook CRUD', () => {
  it('creates with defaults and never answers the secret', async () => {
    const res = await create(owner, base);
    expect(res.statusCode).toBe(201);
    const w = res.json().data;
    expect(w).toMatchObject({
      url: base.url,
      topic: 'record.contact.created',
      webhookFormat: 'structured',
      filter: null,
      includeRelations: [],
      relationLimit: 10,
      retryEnabled: true,
      maxRetries: 5,
      retryBackoffMs: 1000,
      name: 'record.contact.created',
      deletedAt: null,
      createdBy: { uuid: owner.userUuid },
    });
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('c2VjcmV0');
    const read = await t.app.inject({ method: 'GET', url: `/api/v2/webhooks/${w.uuid}`, headers: owner.headers });
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain('secret');
    expect(read.json().data).toEqual(w);
  });

  it('400 names each missing required field', async () => {
    const res = await create(owner, { name: 'nothing' });
    expect(res.statusCode).toBe(400);
    const text = res.json().errors.map((e: { message: string }) => e.message).join('\n');
    expect(text).toMatch(/body\.url/);
    expect(text).toMatch(/body\.secret/);
    expect(text).toMatch(/body\.topic/);
    const onlySecret = await create(owner, { url: base.url, topic: base.topic });
    expect(onlySecret.statusCode).toBe(400);
    expect(onlySecret.json().errors).toHaveLength(1);
    expect(onlySecret.json().errors[0].message).toMatch(/body\.secret/);
  });

  it('accepts every form of the topic grammar and refuses others naming the grammar', async () => {
    for (const topic of [
      'record.contact.updated',
      'record.contact.deleted',
      'record.contact.archived',
      'record.contact.restored',
      'record.contact.all',
      'record.contact.property_changed.email',
      'FormSubmissionEvent',
      'PropertyValueChanged',
      'RelationCreated',
    ]) {
      const res = await create(owner, { ...base, topic });
      expect(res.statusCode, topic).toBe(201);
      expect(res.json().data.topic).toBe(topic);
    }
    for (const topic of ['record.contact', 'record.Contact.created', 'record.contact.exploded', 'record.contact.property_changed', 'contact.created', 'relationcreated', 'record.contact.created.x']) {
      const res = await create(owner, { ...base, topic });
      expect(res.statusCode, topic).toBe(400);
      expect(res.json().errors[0].correctionSuggestion).toContain('record.{objectName}.{created|updated|deleted|archived|restored|all}');
      expect(res.json().errors[0].correctionSuggestion).toContain('property_changed.{propertyName}');
    }
  });

  it('refuses non-http schemes and bad retry settings with the field named', async () => {
    const ftp = await create(owner, { ...base, url: 'ftp://hooks.example.com/in' });
    expect(ftp.statusCode).toBe(400);
    expect(ftp.json().errors[0].message).toMatch(/body\.url/);
    const retries = await create(owner, { ...base, maxRetries: 99 });
    expect(retries.statusCode).toBe(400);
    expect(retries.json().errors[0].message).toMatch(/maxRetries/);
    const short = await create(owner, { ...base, secret: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors[0].message).toMatch(/secret/);
  });

  it('lists, lists by topic substring, searches', async () => {
    const [me] = await twoTenants(t.app);
    await create(me, { ...base, topic: 'record.deal.created', name: 'deals in' });
    await create(me, { ...base, topic: 'record.deal.updated' });
    await create(me, { ...base, topic: 'record.contact.created' });
    const all = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks/index', headers: me.headers, payload: {} });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({ total: 3, page: 0, lastPage: 0 });
    expect(all.json().data.map((w: { index: number }) => w.index)).toEqual([0, 1, 2]);
    const deals = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks/index/deal', headers: me.headers, payload: {} });
    expect(deals.json().data.map((w: { topic: string }) => w.topic)).toEqual(['record.deal.created', 'record.deal.updated']);
    const paged = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks/index', headers: me.headers, payload: { limit: 2, page: 1 } });
    expect(paged.json()).toMatchObject({ total: 3, page: 1, perPage: 2, lastPage: 1 });
    expect(paged.json().data).toHaveLength(1);
    const search = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks/index', headers: me.headers, payload: { query: 'deals in' } });
    expect(search.json().data.map((w: { name: string }) => w.name)).toEqual(['deals in']);
    const none = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks/index/%25', headers: me.headers, payload: {} });
    expect(none.json().total).toBe(0);
  });

  it('updates only what is given; a new secret is accepted and still never returned', async () => {
    const w = (await create(owner, base)).json().data;
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/webhooks/${w.uuid}`,
      headers: owner.headers,
      payload: { topic: 'record.contact.all', maxRetries: 2, retryBackoffMs: 50, webhookFormat: 'legacy', secret: 'another-secret-value' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ url: base.url, topic: 'record.contact.all', maxRetries: 2, retryBackoffMs: 50, webhookFormat: 'LEGACY', revision: 1 });
    expect(res.body).not.toContain('another-secret-value');
    const [row] = await t.platform.db.query<{ secret: string }>('select secret from webhook_secrets where webhook_uuid = $1', [w.uuid]);
    expect(row!.secret).toBe('another-secret-value');
    const events = await t.platform.store.readStream(owner.companyUuid, `webhook-${w.uuid}`);
    expect(events.map((e) => e.type)).toEqual(['WebhookCreated', 'WebhookUpdated']);
    expect(JSON.stringify(events)).not.toContain('another-secret-value');
    expect(JSON.stringify(events)).not.toContain(base.secret);
    expect(events[1]!.data).toMatchObject({ secretRotated: true });
  });

  it('deletes; then 404 on read, update, delete', async () => {
    const w = (await create(owner, base)).json().data;
    const del = await t.app.inject({ method: 'DELETE', url: `/api/v2/webhooks/${w.uuid}`, headers: owner.headers });
    expect(del.statusCode).toBe(200);
    expect(del.json().data).toBe('deleted');
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: `/api/v2/webhooks/${w.uuid}`, headers: owner.headers, payload: method === 'PUT' ? { maxRetries: 1 } : undefined });
      expect(res.statusCode, method).toBe(404);
    }
  });

  it("another company's webhook answers 404 on read, update and delete, and is not listed", async () => {
    const [a, b] = await twoTenants(t.app);
    const w = (await create(a, base)).json().data;
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: `/api/v2/webhooks/${w.uuid}`, headers: b.headers, payload: method === 'PUT' ? { maxRetries: 1 } : undefined });
      expect(res.statusCode, method).toBe(404);
      expect(res.json().errors[0].type).toBe('NOT_FOUND');
    }
    const list = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks/index', headers: b.headers, payload: {} });
    expect(list.json().total).toBe(0);
    const still = await t.app.inject({ method: 'GET', url: `/api/v2/webhooks/${w.uuid}`, headers: a.headers });
    expect(still.statusCode).toBe(200);
  });

  it('formats lists LEGACY and structured; the grammar is published', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/webhooks/formats', headers: owner.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((f: { name: string }) => f.name)).toEqual(['LEGACY', 'structured']);
    const events = await t.app.inject({ method: 'GET', url: '/api/v2/webhooks/events', headers: owner.headers });
    expect(events.json().data.recordActions).toEqual(['created', 'updated', 'deleted', 'archived', 'restored', 'all']);
  });

  it('a USER needs the webhooks scopes: 403 lists them', async () => {
    const user = await joinCompany(t.app, owner, { role: 'USER' });
    const res = await create(user, base);
    expect(res.statusCode).toBe(403);
    expect(res.json().scopes).toEqual(['webhooks:write']);
    const list = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks/index', headers: user.headers, payload: {} });
    expect(list.json().scopes).toEqual(['webhooks:read']);
    const granted = await joinCompany(t.app, owner, { role: 'USER', scopes: ['webhooks:read', 'webhooks:write'] });
    expect((await create(granted, base)).statusCode).toBe(201);
  });
});
