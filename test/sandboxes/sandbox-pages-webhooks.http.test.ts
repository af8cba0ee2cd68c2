import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';
import { aPage, aSite, patchUrl } from '../webpages/cms-fixtures.js';
import { anObjectWith, aRecord, call, data } from '../records/records-fixtures.js';
import { aReadySandbox, inSandbox } from './sandbox-fixtures.js';

let t: TestApp;
let owner: TestTenant;
let rx: Receiver;
const SECRET = `whsec_${Buffer.from('a test secret of some length!').toString('base64')}`;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '1500' });
  owner = await signUpWithCompany(t.app);
  rx = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

describe('a sandbox keeps pages and webhooks apart from production', () => {
  it('a page restored in the sandbox leaves production\'s page as it was', async () => {
    const site = await aSite(t.app, owner);
    const { record, page } = await aPage(t.app, owner, site);
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'POST', url: patchUrl(record.uuid), headers: owner.headers, payload: { locale: 'en', expectedRevision: i, patches: [{ op: 'addModule', module: { id: `m${i}`, module: 'text', fields: { n: i } } }] } });
      expect(res.statusCode, res.body).toBe(200);
    }
    const sandbox = await aReadySandbox(t.app, owner);
    const dev = inSandbox(owner, sandbox.uuid);
    const url = `/api/v2/webpages/v2/pages/${record.uuid}`;
    // The history came along, revisions and all.
    expect((await call(t.app, dev, 'POST', `${url}/history/index?locale=en`, { limit: 10 })).body.total).toBe(4);
    const restored = await data(t.app, dev, 'POST', `${url}/history/1/restore?locale=en`);
    expect(restored.document.modules.map((m: { id: string }) => m.id)).toEqual(['m0']);
    expect((await data(t.app, dev, 'GET', `/api/v2/webpages/${page.uuid}`)).document.modules.map((m: { id: string }) => m.id)).toEqual(['m0']);
    const production = await data(t.app, owner, 'GET', `/api/v2/webpages/${page.uuid}`);
    expect(production.document.revision).toBe(3);
    expect(production.document.modules.map((m: { id: string }) => m.id)).toEqual(['m0', 'm1', 'm2']);
    expect((await call(t.app, owner, 'POST', `${url}/history/index?locale=en`, { limit: 10 })).body.total).toBe(4);
  });

  it('copied webhooks are off in the sandbox; nothing of the sandbox reaches production\'s subscriptions, even with its reactors on', async () => {
    const object = await anObjectWith(t.app, owner, { title: { type: 'string', format: 'text' } });
    const created = await call(t.app, owner, 'POST', '/api/v2/webhooks', { url: `${rx.url}/prod`, secret: SECRET, topic: `record.${object.name}.created` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const prodHook = created.body.data.uuid as string;
    await aRecord(t.app, owner, object.name, { title: 'before' });
    await waitFor(() => (rx.on('/prod').length >= 1 ? true : null), 30_000, 'the production delivery');

    const sandbox = await aReadySandbox(t.app, owner);
    const dev = inSandbox(owner, sandbox.uuid);
    // The copy of production's webhook is deleted in the sandbox (restorable there, on purpose).
    expectNoLive(await call(t.app, dev, 'POST', '/api/v2/webhooks/index', { limit: 100 }), prodHook);
    expect((await call(t.app, owner, 'GET', `/api/v2/webhooks/${prodHook}`)).status).toBe(200);

    await aRecord(t.app, dev, object.name, { title: 'in the sandbox, reactors off' });
    // Reactors on, and a webhook of the sandbox's own.
    const on = await call(t.app, owner, 'PUT', `/api/v2/developer-sandboxes/${sandbox.uuid}`, { reactorsEnabled: true });
    expect(on.status).toBe(200);
    expect(on.body.data.reactorsEnabled).toBe(true);
    expect((await call(t.app, dev, 'POST', '/api/v2/webhooks', { url: `${rx.url}/sandbox`, secret: SECRET, topic: `record.${object.name}.created` })).status).toBe(201);
    const mine = await aRecord(t.app, dev, object.name, { title: 'in the sandbox, reactors on' });
    const got = await waitFor(() => (rx.on('/sandbox').length >= 1 ? rx.on('/sandbox') : null), 30_000, 'the sandbox delivery');
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toContain(mine.uuid);
    // A production write after all that: production's webhook hears it, and only production.
    await aRecord(t.app, owner, object.name, { title: 'after' });
    await waitFor(() => (rx.on('/prod').length >= 2 ? true : null), 30_000, 'the second production delivery');
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.on('/prod')).toHaveLength(2);
    expect(rx.on('/prod').every((r) => !r.body.includes('in the sandbox'))).toBe(true);
    expect(rx.on('/sandbox')).toHaveLength(1);
  }, 300_000);
});

function expectNoLive(res: { status: number; body: Record<string, any> }, uuid: string) {
  expect(res.status).toBe(200);
  expect(res.body.data.map((w: { uuid: string }) => w.uuid)).not.toContain(uuid);
}
