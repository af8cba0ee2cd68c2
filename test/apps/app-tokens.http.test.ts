import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { anObjectForHooks, recordRoutes } from '../support/record-routes.js';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';
import { answers, caller, errorOf, startAppsApp, superAdmin } from './apps-fixtures.js';

let t: Awaited<ReturnType<typeof startAppsApp>>;
let call: ReturnType<typeof caller>;
let maker: TestTenant;
let buyer: TestTenant;
let other: TestTenant;
let root: TestTenant;
let rx: Receiver;

beforeAll(async () => {
  t = await startAppsApp({ WEBHOOK_POLL_MS: '50', WEBHOOK_RATE_LIMIT_MAX: '1000' });
  call = caller(t.app);
  maker = await signUpWithCompany(t.app);
  buyer = await signUpWithCompany(t.app);
  other = await signUpWithCompany(t.app);
  root = await superAdmin(t.app, await signUpWithCompany(t.app));
  rx = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

async function publicApp(label: string, scopes: string[] = []) {
  const created = (await call('POST', '/apps/public', maker.headers, { label })).json().data;
  const put = await call('PUT', `/apps/public/${created.uuid}`, maker.headers, { label, scopes });
  expect(put.statusCode, put.body).toBe(200);
  return created.uuid as string;
}
async function approve(uuid: string) {
  expect((await call('POST', `/apps/public/${uuid}/submit`, maker.headers)).statusCode).toBe(200);
  expect((await call('POST', `/apps/public/${uuid}/review`, root.headers, { outcome: 'APPROVE', feedback: 'ok' })).statusCode).toBe(200);
}
async function install(uuid: string, who: TestTenant) {
  const res = await call('POST', `/apps/${uuid}/install`, who.headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { installation: { grantedScopes: string[] }; credentials: { clientId: string; clientSecret: string } };
}

/** The token endpoint, as an app calls it: form-encoded (the RFC's media type) unless `json`. */
async function token(body: Record<string, string>, o: { json?: boolean; basic?: [string, string] } = {}) {
  const headers: Record<string, string> = { 'content-type': o.json ? 'application/json' : 'application/x-www-form-urlencoded' };
  if (o.basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(o.basic[0])}:${encodeURIComponent(o.basic[1])}`).toString('base64')}`;
  const res = await t.app.inject({ method: 'POST', url: '/api/v2/apps/oauth/token', headers, payload: o.json ? JSON.stringify(body) : new URLSearchParams(body).toString() });
  answers.push(res.body);
  return res;
}
const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` });

describe('the creator company installs its own public app in any review state (spec 4.17)', () => {
  it('DRAFT, SUBMITTED and CHANGES_REQUESTED: the creator installs and uses it; every other company gets 404 until APPROVED', async () => {
    const uuid = await publicApp('Own draft');
    errorOf(await call('POST', `/apps/${uuid}/install`, buyer.headers), 404);
    const mine = await install(uuid, maker);
    expect(mine.installation).toMatchObject({ appUuid: uuid, installed: true });
    // Using it: the runtime routes answer for the creator.
    expect((await call('PUT', `/apps/${uuid}/installation/state`, maker.headers, { step: 1 })).statusCode).toBe(200);
    expect((await call('GET', `/apps/${uuid}/installation/state`, maker.headers)).json().data).toEqual({ step: 1 });

    expect((await call('POST', `/apps/public/${uuid}/submit`, maker.headers)).statusCode).toBe(200);
    errorOf(await call('POST', `/apps/${uuid}/install`, buyer.headers), 404);
    expect((await call('POST', `/apps/public/${uuid}/review`, root.headers, { outcome: 'REQUEST_CHANGES', feedback: 'more' })).statusCode).toBe(200);
    errorOf(await call('POST', `/apps/${uuid}/install`, buyer.headers), 404);
    // Uninstall and reinstall in CHANGES_REQUESTED.
    expect((await call('POST', `/apps/${uuid}/uninstall`, maker.headers)).statusCode).toBe(200);
    await install(uuid, maker);

    expect((await call('POST', `/apps/public/${uuid}/submit`, maker.headers)).statusCode).toBe(200);
    expect((await call('POST', `/apps/public/${uuid}/review`, root.headers, { outcome: 'APPROVE', feedback: 'ok' })).statusCode).toBe(200);
    await install(uuid, buyer);
  });

  it('a REJECTED app stays installable for its creator only', async () => {
    const uuid = await publicApp('Rejected own');
    expect((await call('POST', `/apps/public/${uuid}/submit`, maker.headers)).statusCode).toBe(200);
    expect((await call('POST', `/apps/public/${uuid}/review`, root.headers, { outcome: 'REJECT', feedback: 'no' })).statusCode).toBe(200);
    await install(uuid, maker);
    errorOf(await call('POST', `/apps/${uuid}/install`, buyer.headers), 404);
  });
});

describe('OAuth 2 client credentials (RFC 6749 4.4)', () => {
  it('issues a token for the installation: its company, exactly its granted scopes; 403 elsewhere, 404 in another company', async () => {
    const uuid = await publicApp('Token reader', ['webhooks:read']);
    await approve(uuid);
    const { installation, credentials } = await install(uuid, buyer);
    expect(installation.grantedScopes).toEqual(['webhooks:read']);
    const otherHook = (await call('POST', '/webhooks', other.headers, { url: 'https://example.com/h', secret: 'whsec_' + Buffer.from('x'.repeat(24)).toString('base64'), topic: 'record.x.created' })).json().data;
    const ownHook = (await call('POST', '/webhooks', buyer.headers, { url: 'https://example.com/h', secret: 'whsec_' + Buffer.from('y'.repeat(24)).toString('base64'), topic: 'record.x.created' })).json().data;

    const res = await token({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({ access_token: expect.stringMatching(/^apt_[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: 3600, scope: 'webhooks:read' });
    const h = bearer(body.access_token);

    // What the scopes allow, in the installation's company.
    const listed = await call('POST', '/webhooks/index', h, { limit: 100 });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().data.map((w: { uuid: string }) => w.uuid)).toEqual([ownHook.uuid]);
    expect((await call('GET', `/webhooks/${ownHook.uuid}`, h)).json().data.uuid).toBe(ownHook.uuid);
    // Another company's resource: the same 404 as a missing one.
    errorOf(await call('GET', `/webhooks/${otherHook.uuid}`, h), 404);
    // Beyond its scopes or its role: 403 naming what is missing.
    const noScope = errorOf(await call('POST', '/webhooks', h, { url: 'https://example.com/z', secret: 'whsec_' + Buffer.from('z'.repeat(24)).toString('base64'), topic: 'record.x.created' }), 403);
    expect(noScope.scopes).toEqual(['webhooks:write']);
    expect(errorOf(await call('POST', '/sync/index', h, { limit: 10 }), 403).scopes).toEqual(['syncs:read']);
    expect(errorOf(await call('POST', '/objects', h, { name: 'nope', label: 'nope' }), 403).scopes).toEqual(['schema:write']);
    expect(errorOf(await call('GET', '/events/stream', h), 403).roles).toEqual(['ADMIN']);
    // A user's own session routes are not an app's.
    errorOf(await call('GET', '/auth/me', h), 403);
    // The app as the platform sees it: the installation's company, the app's uuid as its user, role USER.
    expect((await call('GET', `/apps/${uuid}/me`, h)).json().data).toMatchObject({ companyUuid: buyer.companyUuid, userUuid: uuid, role: 'USER', installed: true });

    // A narrower scope on request; one beyond the grant is invalid_scope.
    const narrow = await token({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret, scope: '' }, { json: true });
    expect(narrow.json()).toMatchObject({ scope: '' });
    errorOf(await call('POST', '/webhooks/index', bearer(narrow.json().access_token), { limit: 1 }), 403);
    const beyond = await token({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret, scope: 'webhooks:read webhooks:write' });
    expect(errorOf(beyond, 400)).toMatchObject({ error: 'invalid_scope' });

    // The events of the installation carry the hash of the client secret only; the token is nowhere.
    const events = JSON.stringify(await t.platform.store.readStream(buyer.companyUuid, `installation-${uuid}`));
    expect(events).not.toContain(credentials.clientSecret);
    expect(events).not.toContain(body.access_token);
    expect(t.logs.join('\n')).not.toContain(credentials.clientSecret);
    expect(t.logs.join('\n')).not.toContain(body.access_token);
    const stored = await t.platform.db.query<{ token_hash: string }>('select token_hash from app_access_tokens');
    expect(JSON.stringify(stored)).not.toContain(body.access_token);

    // Uninstalled: the token is dead at once.
    expect((await call('POST', `/apps/${uuid}/uninstall`, buyer.headers)).statusCode).toBe(200);
    errorOf(await call('POST', '/webhooks/index', h, { limit: 1 }), 401);
    expect(errorOf(await token({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret }), 401)).toMatchObject({ error: 'invalid_client' });
  });

  it('HTTP Basic and JSON bodies; the RFC errors with the spec error body; rotation ends old tokens after the grace period', async () => {
    const uuid = await publicApp('Token basics', ['webhooks:read']);
    await approve(uuid);
    const { credentials } = await install(uuid, buyer);
    const basic = await token({ grant_type: 'client_credentials' }, { basic: [credentials.clientId, credentials.clientSecret] });
    expect(basic.statusCode, basic.body).toBe(200);
    const json = await token({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret }, { json: true });
    expect(json.statusCode, json.body).toBe(200);

    const wrong = await token({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: 'not-it' });
    expect(errorOf(wrong, 401)).toMatchObject({ error: 'invalid_client', error_description: expect.any(String) });
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    const unknown = await token({ grant_type: 'client_credentials', client_id: 'app_nobody', client_secret: 'x' });
    expect(errorOf(unknown, 401).error_description).toBe(wrong.json().error_description);
    expect(errorOf(await token({ grant_type: 'password', client_id: credentials.clientId, client_secret: credentials.clientSecret }), 400)).toMatchObject({ error: 'unsupported_grant_type' });
    expect(errorOf(await token({ client_id: credentials.clientId, client_secret: credentials.clientSecret }), 400)).toMatchObject({ error: 'invalid_request' });
    expect(errorOf(await token({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret }, { basic: [credentials.clientId, credentials.clientSecret] }), 400)).toMatchObject({ error: 'invalid_request' });
    expect(errorOf(await token({ grant_type: 'client_credentials' }), 401)).toMatchObject({ error: 'invalid_client' });
    // Hostile bodies: a repeated parameter, a malformed JSON, a field of the wrong type, an oversized body, a bad Basic header.
    const twice = await t.app.inject({ method: 'POST', url: '/api/v2/apps/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&grant_type=client_credentials' });
    expect(errorOf(twice, 400)).toMatchObject({ error: 'invalid_request' });
    const malformed = await t.app.inject({ method: 'POST', url: '/api/v2/apps/oauth/token', headers: { 'content-type': 'application/json' }, payload: '{"grant_type":' });
    expect(errorOf(malformed, 400)).toMatchObject({ error: 'invalid_request' });
    const typed = await t.app.inject({ method: 'POST', url: '/api/v2/apps/oauth/token', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ grant_type: 'client_credentials', client_id: 7 }) });
    expect(errorOf(typed, 400)).toMatchObject({ error: 'invalid_request' });
    const proto = await t.app.inject({ method: 'POST', url: '/api/v2/apps/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '__proto__=x&grant_type=client_credentials' });
    expect(errorOf(proto, 401)).toMatchObject({ error: 'invalid_client' });
    errorOf(await t.app.inject({ method: 'POST', url: '/api/v2/apps/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=${'x'.repeat(20_000)}` }), 413);
    const badBasic = await t.app.inject({ method: 'POST', url: '/api/v2/apps/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic %%%' }, payload: 'grant_type=client_credentials' });
    expect(errorOf(badBasic, 401)).toMatchObject({ error: 'invalid_client' });
    for (const r of [wrong, unknown, twice, malformed, badBasic]) expect(r.body).not.toMatch(/stack|at .*\.ts|select /i);

    // Rotation: the old credentials buy tokens during the grace period only; old tokens end with it.
    const old = basic.json().access_token as string;
    const rotated = (await call('POST', `/apps/${uuid}/rotate`, buyer.headers, { graceMs: 0 })).json().data.credentials;
    errorOf(await call('POST', '/webhooks/index', bearer(old), { limit: 1 }), 401);
    errorOf(await token({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret }), 401);
    const fresh = await token({ grant_type: 'client_credentials', client_id: rotated.clientId, client_secret: rotated.clientSecret });
    expect((await call('POST', '/webhooks/index', bearer(fresh.json().access_token), { limit: 1 })).statusCode).toBe(200);
  });

  it('the token endpoint is rate limited per client address', async () => {
    const limited = await startAppsApp({ RATE_LIMIT_ENABLED: 'true' });
    try {
      let last = 0;
      for (let i = 0; i < 31; i++) {
        const res = await limited.app.inject({ method: 'POST', url: '/api/v2/apps/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`app_${i}:s${i}`).toString('base64')}` }, payload: 'grant_type=client_credentials' });
        last = res.statusCode;
      }
      expect(last).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('an uninstall stops deliveries to the app\'s webhooks', () => {
  it('a real receiver gets deliveries while installed and none after the uninstall; a reinstall (keepData) brings them back', async () => {
    const uuid = await publicApp('Hooked');
    await approve(uuid);
    await install(uuid, buyer);
    const obj = await anObjectForHooks(t.app, buyer);
    const hook = await call('POST', `/apps/${uuid}/webhooks`, buyer.headers, { url: `${rx.url}/app-hook`, secret: 'whsec_' + Buffer.from('a test secret of some length!').toString('base64'), topic: `record.${obj}.created` });
    expect(hook.statusCode, hook.body).toBe(201);
    const records = recordRoutes(t.app, t.platform.store, buyer, obj);

    await records.create({ email: 'before@example.com' });
    await waitFor(() => rx.on('/app-hook').length === 1, 10_000, 'the delivery before the uninstall');

    expect((await call('POST', `/apps/${uuid}/uninstall`, buyer.headers, { keepData: true })).statusCode).toBe(200);
    await records.create({ email: 'after@example.com' });
    await records.create({ email: 'after2@example.com' });
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.on('/app-hook')).toHaveLength(1);
    expect(rx.on('/app-hook')[0]!.body).toContain('before@example.com');

    await install(uuid, buyer);
    await records.create({ email: 'again@example.com' });
    await waitFor(() => rx.on('/app-hook').length === 2, 10_000, 'the delivery after the reinstall');
    expect(rx.on('/app-hook')[1]!.body).toContain('again@example.com');
  });
});
