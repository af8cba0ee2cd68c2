import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// The object cache (src/records/object-cache.ts) forgets a tenant's objects as soon as this
// process changes that tenant's schema: a record write right after sees the new definitions.
let t: TestApp;
let admin: TestTenant;

beforeAll(async () => {
  t = await startTestApp({ SCHEMA_CACHE_MS: '60000' });
  admin = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

const call = (method: 'POST' | 'DELETE', url: string, payload?: unknown) =>
  t.app.inject({ method, url: `/api/v2${url}`, headers: admin.headers, payload: payload as Record<string, unknown> | undefined });

describe('record writes after a schema change in the same process', () => {
  it('see a property added or deleted a moment before, even with a long cache lifetime', async () => {
    const object = (await call('POST', '/objects', { name: 'gadget', label: 'Gadget' })).json().data;
    await call('POST', `/objects/${object.uuid}/properties`, { name: 'title', label: 'Title', type: 'string', format: 'text' });
    expect((await call('POST', '/gadget', { properties: { title: 'one' } })).statusCode).toBe(201);

    // Cached now; a new property is usable at once.
    const colour = (await call('POST', `/objects/${object.uuid}/properties`, { name: 'colour', label: 'Colour', type: 'string', format: 'text' })).json().data;
    const withColour = await call('POST', '/gadget', { properties: { title: 'two', colour: 'red' } });
    expect(withColour.statusCode).toBe(201);
    expect(withColour.json().data.properties).toMatchObject({ colour: 'red' });

    // A deleted one is refused at once.
    expect((await call('DELETE', `/objects/${object.uuid}/properties/${colour.uuid}`)).statusCode).toBe(200);
    const refused = await call('POST', '/gadget', { properties: { title: 'three', colour: 'blue' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('colour');
  });
});
