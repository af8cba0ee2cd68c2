import { OAuth2Server } from 'oauth2-mock-server';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeSecretBox } from '../../src/apps/secret-box.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { projections } from '../../projections/index.js';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { aRecord, anObjectWith } from '../records/records-fixtures.js';
import { answers, caller, errorOf, startAppsApp, superAdmin } from './apps-fixtures.js';

const CANARY = `canary-${Date.now().toString(36)}-Zq9xY`;

let t: Awaited<ReturnType<typeof startAppsApp>>;
let call: ReturnType<typeof caller>;
let receiver: Receiver;
let maker: TestTenant;
let buyer: TestTenant;
let buyerUser: TestTenant;
let stranger: TestTenant;
let appUuid: string;
let signingSecret: string;

beforeAll(async () => {
  t = await startAppsApp();
  call = caller(t.app);
  receiver = await startReceiver();
  receiver.answer((_n, req) => (req.path === '/options' ? { status: 200, body: JSON.stringify({ options: [{ value: 'a', label: 'Alpha' }, { value: 'b', label: 'Beta' }] }), headers: { 'content-type': 'application/json' } } : { status: 200 }));
  maker = await signUpWithCompany(t.app);
  buyer = await signUpWithCompany(t.app);
  buyerUser = await joinCompany(t.app, buyer, { role: 'USER' });
  stranger = await signUpWithCompany(t.app);
  const root = await superAdmin(t.app, stranger);
  appUuid = (await call('POST', '/apps/public', maker.headers, { label: 'Runtime' })).json().data.uuid;
  const settingsSchema = [
    { name: 'region', label: 'Region', type: 'SINGLE_SELECT', options: [{ value: 'eu', label: 'EU' }, { value: 'us', label: 'US' }] },
    { name: 'list', label: 'List', type: 'SINGLE_SELECT', optionsUrl: `${receiver.url}/options` },
    { name: 'verbose', label: 'Verbose', type: 'BOOLEAN', default: false },
    { name: 'signature', label: 'Signature', type: 'TEXT', scope: 'USER' },
    { name: 'apiKey', label: 'API key', type: 'SECRET' },
    { name: 'syncNow', label: 'Sync now', type: 'ACTION' },
  ];
  const put = await call('PUT', `/apps/public/${appUuid}`, maker.headers, { label: 'Runtime', settingsSchema, webhookUrl: `${receiver.url}/hook`, appBars: [{ label: 'Panel', location: 'RECORD', type: 'IFRAME', url: `${receiver.url}/bar` }] });
  expect(put.statusCode, put.body).toBe(200);
  await call('POST', `/apps/public/${appUuid}/submit`, maker.headers);
  await call('POST', `/apps/public/${appUuid}/review`, root.headers, { outcome: 'APPROVE', feedback: 'ok' });
  const installed = await call('POST', `/apps/${appUuid}/install`, buyer.headers, { settings: { region: 'eu' } });
  expect(installed.statusCode, installed.body).toBe(201);
  signingSecret = installed.json().data.credentials.signingSecret;
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const base = () => `/apps/${appUuid}/installation`;

describe('installation runtime', () => {
  it('state: map, shallow merge, one key', async () => {
    expect((await call('GET', `${base()}/state`, buyerUser.headers)).json().data).toEqual({});
    expect((await call('PUT', `${base()}/state`, buyerUser.headers, { cursor: 5, nested: { a: 1 } })).json().data).toEqual({ cursor: 5, nested: { a: 1 } });
    expect((await call('PUT', `${base()}/state`, buyerUser.headers, { nested: { b: 2 } })).json().data).toEqual({ cursor: 5, nested: { b: 2 } });
    expect((await call('GET', `${base()}/state/cursor`, buyerUser.headers)).json().data).toBe(5);
    expect((await call('PUT', `${base()}/state/cursor`, buyerUser.headers, { value: 6 })).json().data.cursor).toBe(6);
    expect((await call('DELETE', `${base()}/state/cursor`, buyerUser.headers)).json().data).toEqual({ nested: { b: 2 } });
    errorOf(await call('GET', `${base()}/state/cursor`, buyerUser.headers), 404);
    errorOf(await call('DELETE', `${base()}/state/cursor`, buyerUser.headers), 404);
    errorOf(await call('PUT', `${base()}/state`, buyerUser.headers, { big: 'x'.repeat(70_000) }), 400);
  });

  it('settings: COMPANY merge checked against the schema, USER per user', async () => {
    expect((await call('PUT', `${base()}/settings`, buyer.headers, { region: 'us', verbose: true })).json().data).toEqual({ region: 'us', verbose: true });
    const bad = errorOf(await call('PUT', `${base()}/settings`, buyer.headers, { region: 'mars', verbose: 'yes', signature: 'x', apiKey: 'y' }), 400);
    expect(bad.errors.map((e: { message: string }) => e.message.split(':')[0]).sort()).toEqual(['settings.apiKey', 'settings.region', 'settings.signature', 'settings.verbose']);
    errorOf(await call('PUT', `${base()}/settings`, buyerUser.headers, { region: 'eu' }), 403);
    expect((await call('PUT', `${base()}/settings`, buyer.headers, { verbose: null })).json().data).toEqual({ region: 'us' });

    expect((await call('PUT', `${base()}/settings/user`, buyerUser.headers, { signature: 'Regards, U' })).json().data).toEqual({ signature: 'Regards, U' });
    errorOf(await call('PUT', `${base()}/settings/user`, buyerUser.headers, { region: 'eu' }), 400);
    expect((await call('GET', `${base()}/settings`, buyerUser.headers)).json().data).toEqual({ company: { region: 'us' }, user: { signature: 'Regards, U' } });
    expect((await call('GET', `${base()}/settings`, buyer.headers)).json().data.user).toEqual({});
  });

  it('secrets: sealed, names only, deletable', async () => {
    const set = await call('PUT', `${base()}/secrets/apiKey`, buyer.headers, { value: CANARY });
    expect(set.json()).toEqual({ message: 'saved', data: { name: 'apiKey' } });
    await call('PUT', `${base()}/secrets/other.key`, buyer.headers, { value: `${CANARY}-2` });
    errorOf(await call('PUT', `${base()}/secrets/apiKey`, buyerUser.headers, { value: CANARY }), 403);
    errorOf(await call('PUT', `${base()}/secrets/9bad`, buyer.headers, { value: CANARY }), 400);
    errorOf(await call('PUT', `${base()}/secrets/apiKey`, buyer.headers, { value: 42, echo: CANARY }), 400);
    const names = (await call('GET', `${base()}/secrets`, buyerUser.headers)).json().data;
    expect(names.map((s: { name: string }) => s.name)).toEqual(['apiKey', 'other.key']);
    expect((await call('DELETE', `${base()}/secrets/other.key`, buyer.headers)).statusCode).toBe(200);
    errorOf(await call('DELETE', `${base()}/secrets/other.key`, buyer.headers), 404);

    // At rest: ciphertext bound to the installation and the name, opened by the configured key only.
    const [row] = await t.platform.db.query<{ ciphertext: string }>('select ciphertext from rm_app_secrets where tenant = $1 and app_uuid = $2 and name = $3', [buyer.companyUuid, appUuid, 'apiKey']);
    const box = makeSecretBox(Buffer.from(t.config.APPS_SECRETS_KEY!, 'base64'));
    expect(box.open(row!.ciphertext, `${buyer.companyUuid}:${appUuid}:secret:apiKey`)).toBe(CANARY);
    expect(() => box.open(row!.ciphertext, `${stranger.companyUuid}:${appUuid}:secret:apiKey`)).toThrow();
  });

  it('an ACTION fires the app webhook, signed, and saves nothing', async () => {
    const before = (await call('GET', `${base()}/settings`, buyer.headers)).json().data;
    const res = await call('POST', `${base()}/settings/syncNow/trigger`, buyerUser.headers, { settings: { region: 'eu' } });
    expect(res.json().data).toEqual({ delivered: true, statusCode: 200 });
    const [hit] = receiver.on('/hook');
    const payload = new Webhook(signingSecret).verify(hit!.body, hit!.headers as Record<string, string>) as Record<string, unknown>;
    expect(payload).toMatchObject({ type: 'settings.action', field: 'syncNow', appUuid, companyUuid: buyer.companyUuid, userUuid: buyerUser.userUuid, settings: { region: 'eu', signature: 'Regards, U' } });
    expect((await call('GET', `${base()}/settings`, buyer.headers)).json().data).toEqual(before);
    errorOf(await call('POST', `${base()}/settings/region/trigger`, buyerUser.headers), 400);
    errorOf(await call('POST', `${base()}/settings/nope/trigger`, buyerUser.headers), 404);
  });

  it('settings-schema/options: from the optionsUrl (signed), static ones, the draft schema; a private address is refused', async () => {
    expect((await call('POST', `/apps/${appUuid}/settings-schema/options`, buyerUser.headers, { fieldName: 'list' })).json().data).toEqual([{ value: 'a', label: 'Alpha' }, { value: 'b', label: 'Beta' }]);
    const [hit] = receiver.on('/options');
    expect(new Webhook(signingSecret).verify(hit!.body, hit!.headers as Record<string, string>)).toMatchObject({ type: 'settings.options', field: 'list' });
    expect((await call('POST', `/apps/${appUuid}/settings-schema/options`, buyerUser.headers, { fieldName: 'region' })).json().data).toHaveLength(2);
    const draft = [{ name: 'other', label: 'Other', type: 'MULTI_SELECT', optionsUrl: 'http://10.1.2.3/options' }];
    const refused = errorOf(await call('POST', `/apps/${appUuid}/settings-schema/options`, buyerUser.headers, { fieldName: 'other', settingsSchema: draft }), 409);
    expect(refused.errors[0].message).toContain('10.1.2.3');
    errorOf(await call('POST', `/apps/${appUuid}/settings-schema/options`, buyerUser.headers, { fieldName: 'verbose' }), 400);
  });

  it('rotate: deliveries are signed with the new and, during the grace period, the old secret', async () => {
    const rotated = (await call('POST', `/apps/${appUuid}/rotate`, buyer.headers, { graceMs: 60_000 })).json().data;
    await call('POST', `${base()}/settings/syncNow/trigger`, buyerUser.headers);
    const hit = receiver.on('/hook').at(-1)!;
    expect(String(hit.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(signingSecret).verify(hit.body, hit.headers as Record<string, string>)).toBeTruthy();
    expect(new Webhook(rotated.credentials.signingSecret).verify(hit.body, hit.headers as Record<string, string>)).toBeTruthy();
    const newest = (await call('POST', `/apps/${appUuid}/rotate`, buyer.headers, { graceMs: 0 })).json().data.credentials.signingSecret;
    await call('POST', `${base()}/settings/syncNow/trigger`, buyerUser.headers);
    const last = receiver.on('/hook').at(-1)!;
    expect(() => new Webhook(signingSecret).verify(last.body, last.headers as Record<string, string>)).toThrow();
    expect(new Webhook(newest).verify(last.body, last.headers as Record<string, string>)).toBeTruthy();
    signingSecret = newest;
  });

  it('every runtime route: 401 without a token, 404 for a company without the installation', async () => {
    const routes = [
      ['GET', `${base()}/state`], ['PUT', `${base()}/state`], ['GET', `${base()}/state/k`], ['PUT', `${base()}/state/k`], ['DELETE', `${base()}/state/k`],
      ['GET', `${base()}/settings`], ['PUT', `${base()}/settings`], ['PUT', `${base()}/settings/user`], ['GET', `${base()}/secrets`], ['PUT', `${base()}/secrets/apiKey`],
      ['DELETE', `${base()}/secrets/apiKey`], ['POST', `${base()}/settings/syncNow/trigger`], ['POST', `/apps/${appUuid}/settings-schema/options`],
    ] as const;
    const body = (m: string, url: string) => (m === 'GET' || m === 'DELETE' ? undefined : url.includes('secrets') ? { value: 'v' } : url.includes('options') ? { fieldName: 'list' } : url.endsWith('/k') ? { value: 1 } : {});
    for (const [m, url] of routes) errorOf(await call(m, url, {}, body(m, url)), 401);
    for (const [m, url] of routes) errorOf(await call(m, url, stranger.headers, body(m, url)), 404);
    // The maker created the app but has not installed it: the same 404.
    errorOf(await call('GET', `${base()}/state`, maker.headers), 404);
  });
});

describe('app bars', () => {
  const barOf = async (who: TestTenant) => (await call('GET', '/app-bars?location=RECORD', who.headers)).json().data as { uuid: string; appUuid: string; label: string; url: string }[];

  it('lists the installed apps\' bars at a location', async () => {
    const bars = await barOf(buyerUser);
    expect(bars).toEqual([expect.objectContaining({ appUuid, label: 'Panel', location: 'RECORD', type: 'IFRAME', url: `${receiver.url}/bar` })]);
    expect((await call('GET', '/app-bars?location=DASHBOARD', buyerUser.headers)).json().data).toEqual([]);
    expect(await barOf(maker)).toEqual([]);
    errorOf(await call('GET', '/app-bars?location=MOON', buyerUser.headers), 400);
  });

  it('an iframe token (stored hashed) validates once within its lifetime, with safe context only', async () => {
    const [bar] = await barOf(buyerUser);
    const recordUuid = '11111111-1111-4111-8111-111111111111';
    const issued = await call('POST', `/app-bars/${bar!.uuid}/iframe-session`, buyerUser.headers, { recordUuid, filter: { groups: [] } });
    expect(issued.statusCode, issued.body).toBe(201);
    const { token, expiresAt } = issued.json().data;
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(60_000);
    expect(await t.platform.db.query('select 1 from app_iframe_sessions where token_hash = $1', [token])).toHaveLength(0);

    const valid = await call('POST', `/app-bars/iframe-session/validate?platform_iframe_token=${token}`, {});
    expect(valid.statusCode, valid.body).toBe(200);
    expect(valid.json().data).toEqual({ appUuid, appBarUuid: bar!.uuid, user: { uuid: buyerUser.userUuid, firstname: 'Test', lastname: 'User' }, company: { uuid: buyer.companyUuid, name: expect.any(String) }, recordUuid, viewUuid: null, filter: { groups: [] } });
    expect(valid.body).not.toContain(buyerUser.email);
    expect(valid.body).not.toContain(token);
    errorOf(await call('POST', '/app-bars/iframe-session/validate', {}, { platform_iframe_token: token }), 401);

    const second = (await call('POST', `/app-bars/${bar!.uuid}/iframe-session`, buyerUser.headers)).json().data.token;
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    try {
      errorOf(await call('POST', '/app-bars/iframe-session/validate', {}, { platform_iframe_token: second }), 401);
    } finally {
      vi.useRealTimers();
    }
    const third = (await call('POST', `/app-bars/${bar!.uuid}/iframe-session`, buyerUser.headers)).json().data.token;
    expect((await call('POST', '/app-bars/iframe-session/validate', {}, { platform_iframe_token: third })).statusCode).toBe(200);
    errorOf(await call('POST', '/app-bars/iframe-session/validate', {}, {}), 400);
    errorOf(await call('POST', '/app-bars/iframe-session/validate', {}, { platform_iframe_token: 'x'.repeat(43) }), 401);
  });

  it('trigger fires the app bar webhook, signed, with settings and context', async () => {
    const [bar] = await barOf(buyerUser);
    const res = await call('POST', `/app-bars/${bar!.uuid}/trigger`, buyerUser.headers, { viewUuid: '22222222-2222-4222-8222-222222222222', settings: { region: 'eu' } });
    expect(res.json().data).toEqual({ delivered: true, statusCode: 200 });
    const hit = receiver.on('/hook').at(-1)!;
    expect(new Webhook(signingSecret).verify(hit.body, hit.headers as Record<string, string>)).toMatchObject({
      type: 'appbar.trigger', appBarUuid: bar!.uuid, appUuid, companyUuid: buyer.companyUuid, userUuid: buyerUser.userUuid, settings: { region: 'eu' }, context: { viewUuid: '22222222-2222-4222-8222-222222222222', recordUuid: null },
    });
  });

  it('401 without a token; another company\'s app bar is a 404', async () => {
    const [bar] = await barOf(buyerUser);
    for (const [m, url] of [['GET', '/app-bars'], ['POST', `/app-bars/${bar!.uuid}/iframe-session`], ['POST', `/app-bars/${bar!.uuid}/trigger`]] as const) errorOf(await call(m, url, {}, m === 'GET' ? undefined : {}), 401);
    errorOf(await call('POST', `/app-bars/${bar!.uuid}/iframe-session`, stranger.headers, {}), 404);
    errorOf(await call('POST', `/app-bars/${bar!.uuid}/trigger`, stranger.headers, {}), 404);
    errorOf(await call('POST', `/app-bars/${bar!.uuid}/iframe-session`, maker.headers, {}), 404);
  });
});

describe('app webhooks', () => {
  const hook = () => ({ url: `${receiver.url}/app-hook`, secret: 'whsec_YXBwLXdlYmhvb2stc2VjcmV0LTEyMzQ=', topic: 'record.deal.created' });

  it('CRUD for an installed app; the company\'s own webhooks and the app\'s are apart', async () => {
    const created = await call('POST', `/apps/${appUuid}/webhooks`, buyer.headers, hook());
    expect(created.statusCode, created.body).toBe(201);
    const w = created.json().data;
    expect(w).toMatchObject({ appUuid, topic: 'record.deal.created', url: `${receiver.url}/app-hook` });
    expect(created.body).not.toContain('YXBwLXdlYmhvb2st');
    const viaWebhooks = await call('POST', `/webhooks/apps/${appUuid}`, buyer.headers, { ...hook(), topic: 'record.deal.updated' });
    expect(viaWebhooks.statusCode, viaWebhooks.body).toBe(201);
    const list = (await call('POST', `/apps/${appUuid}/webhooks/index`, buyer.headers, {})).json();
    expect(list.data.map((x: { topic: string }) => x.topic).sort()).toEqual(['record.deal.created', 'record.deal.updated']);
    expect((await call('POST', '/webhooks/index', buyer.headers, {})).json().data).toEqual([]);
    errorOf(await call('GET', `/webhooks/${w.uuid}`, buyer.headers), 404);
    expect((await call('GET', `/apps/${appUuid}/webhooks/${w.uuid}`, buyer.headers)).json().data.uuid).toBe(w.uuid);
    expect((await call('PUT', `/apps/${appUuid}/webhooks/${w.uuid}`, buyer.headers, { name: 'Deals' })).json().data.name).toBe('Deals');
    expect((await call('DELETE', `/apps/${appUuid}/webhooks/${viaWebhooks.json().data.uuid}`, buyer.headers)).statusCode).toBe(200);
    expect((await call('POST', `/apps/${appUuid}/webhooks/index`, buyer.headers, {})).json().total).toBe(1);
    errorOf(await call('POST', `/apps/${appUuid}/webhooks`, buyer.headers, { ...hook(), url: 'http://10.0.0.1/x' }), 400);
    errorOf(await call('POST', `/apps/${appUuid}/webhooks`, buyerUser.headers, hook()), 403);
  });

  it('formats, events, property-topics', async () => {
    const object = await anObjectWith(t.app, buyer, { stage: { type: 'string', format: 'text' } });
    expect((await call('GET', `/apps/${appUuid}/webhooks/formats`, buyer.headers)).json().data.length).toBeGreaterThanOrEqual(2);
    expect((await call('GET', `/apps/${appUuid}/webhooks/events`, buyer.headers)).json().data.recordActions).toContain('created');
    const topics = (await call('GET', `/apps/${appUuid}/webhooks/property-topics?objectName=${object.name}`, buyer.headers)).json().data;
    expect(topics).toContainEqual({ objectName: object.name, propertyName: 'stage', topic: `record.${object.name}.property_changed.stage` });
  });

  it('the three test routes: unsaved configuration, saved webhook, given record and event type; simulated record noted', async () => {
    const object = await anObjectWith(t.app, buyer, { stage: { type: 'string', format: 'text' } });
    const unsaved = await call('POST', `/apps/${appUuid}/webhooks/test`, buyer.headers, { topic: `record.${object.name}.created` });
    expect(unsaved.statusCode, unsaved.body).toBe(200);
    expect(unsaved.json().data).toMatchObject({ simulated: true, eventType: 'created' });
    expect(unsaved.headers['x-webhook-test-note']).toBe(unsaved.json().data.testNote);
    expect(unsaved.json().data.payload.context.testNote).toBe(unsaved.json().data.testNote);

    const saved = (await call('POST', `/apps/${appUuid}/webhooks`, buyer.headers, { ...hook(), topic: `record.${object.name}.all` })).json().data;
    const record = await aRecord(t.app, buyer, object.name, { stage: 'won' });
    const auto = await call('POST', `/apps/${appUuid}/webhooks/test/${saved.uuid}`, buyer.headers);
    expect(auto.json().data).toMatchObject({ simulated: false, payload: { data: { record: { uuid: record.uuid } } } });
    const given = await call('POST', `/apps/${appUuid}/webhooks/test/${saved.uuid}/${record.uuid}/created?deliver=true`, buyer.headers);
    expect(given.statusCode, given.body).toBe(200);
    expect(given.json().data).toMatchObject({ eventType: 'created', simulated: false, delivery: { ok: true } });
    // The test delivery arrived (and, the reactors running, the live one of the record's creation too).
    expect(receiver.on('/app-hook').map((r) => r.headers['webhook-id'])).toContain(given.json().data.messageId);
  });

  it('not installed or another company: 404; no token: 401', async () => {
    const [w] = (await call('POST', `/apps/${appUuid}/webhooks/index`, buyer.headers, {})).json().data;
    const routes = [
      ['POST', `/apps/${appUuid}/webhooks`], ['POST', `/webhooks/apps/${appUuid}`], ['POST', `/apps/${appUuid}/webhooks/index`], ['GET', `/apps/${appUuid}/webhooks/${w.uuid}`],
      ['PUT', `/apps/${appUuid}/webhooks/${w.uuid}`], ['DELETE', `/apps/${appUuid}/webhooks/${w.uuid}`], ['GET', `/apps/${appUuid}/webhooks/property-topics`],
      ['GET', `/apps/${appUuid}/webhooks/formats`], ['GET', `/apps/${appUuid}/webhooks/events`], ['POST', `/apps/${appUuid}/webhooks/test`],
      ['POST', `/apps/${appUuid}/webhooks/test/${w.uuid}`], ['POST', `/apps/${appUuid}/webhooks/test/${w.uuid}/${w.uuid}/created`],
    ] as const;
    const body = (m: string, url: string) => (m === 'GET' || m === 'DELETE' ? undefined : url.endsWith('/test') ? { topic: 'record.deal.created' } : m === 'PUT' ? { name: 'x' } : url.endsWith('index') ? {} : hook());
    for (const [m, url] of routes) errorOf(await call(m, url, {}, body(m, url)), 401);
    for (const [m, url] of routes) errorOf(await call(m, url, stranger.headers, body(m, url)), 404);
    for (const [m, url] of routes) errorOf(await call(m, url, maker.headers, body(m, url)), 404);
  });
});

describe('OAuth connections', () => {
  it('start (state + PKCE) -> provider -> callback exchanges the code; connections; revoke removes the tokens', async () => {
    const provider = new OAuth2Server();
    await provider.issuer.keys.generate('RS256');
    await provider.start(0, '127.0.0.1');
    const revoked: string[] = [];
    provider.service.on('beforeRevoke', (_res: unknown, req: { method: string }) => void revoked.push(req.method));
    try {
      const issuer = provider.issuer.url!;
      const view = (await call('GET', `/apps/public/${appUuid}`, maker.headers)).json().data;
      const oauthProviders = [{ name: 'crm', issuer, authorizationEndpoint: `${issuer}/authorize`, tokenEndpoint: `${issuer}/token`, revocationEndpoint: `${issuer}/revoke`, clientId: 'platform-client', scopes: ['contacts'] }];
      const put = await call('PUT', `/apps/public/${appUuid}`, maker.headers, { ...view, oauthProviders });
      expect(put.statusCode, put.body).toBe(200);

      errorOf(await call('POST', `${base()}/oauth/nope/start`, buyer.headers), 404);
      errorOf(await call('POST', `${base()}/oauth/crm/start`, buyerUser.headers), 403);
      const started = (await call('POST', `${base()}/oauth/crm/start`, buyer.headers)).json().data;
      const authorize = new URL(started.authorizeUrl);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ response_type: 'code', client_id: 'platform-client', state: started.state, code_challenge_method: 'S256', scope: 'contacts' });
      expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await t.platform.db.query('select 1 from app_oauth_flows where state_hash = $1', [started.state])).toHaveLength(0);

      // The user's browser at the provider: it redirects back with the code.
      const atProvider = await fetch(started.authorizeUrl, { redirect: 'manual' });
      expect(atProvider.status).toBe(302);
      const back = new URL(atProvider.headers.get('location')!);
      expect(back.pathname).toBe('/api/v2/apps/oauth/callback');
      const done = await call('GET', `/apps/oauth/callback${back.search}`, {});
      expect(done.statusCode, done.body).toBe(200);
      expect(done.json().data).toMatchObject({ provider: 'crm', appUuid });
      errorOf(await call('GET', `/apps/oauth/callback${back.search}`, {}), 409);
      errorOf(await call('GET', '/apps/oauth/callback?code=x&state=forged', {}), 409);

      const connections = (await call('GET', `${base()}/connections`, buyerUser.headers)).json().data;
      expect(connections).toEqual([expect.objectContaining({ connectionId: done.json().data.connectionId, provider: 'crm', status: 'CONNECTED', scope: expect.any(String) })]);
      const [row] = await t.platform.db.query<{ tokens: string }>('select tokens from rm_app_connections where tenant = $1 and app_uuid = $2', [buyer.companyUuid, appUuid]);
      const tokens = JSON.parse(makeSecretBox(Buffer.from(t.config.APPS_SECRETS_KEY!, 'base64')).open(row!.tokens, `${buyer.companyUuid}:${appUuid}:oauth:${done.json().data.connectionId}`));
      expect(tokens.access_token).toEqual(expect.any(String));
      errorOf(await call('GET', `${base()}/connections`, stranger.headers), 404);
      errorOf(await call('DELETE', `${base()}/connections/crm`, stranger.headers), 404);
      errorOf(await call('DELETE', `${base()}/connections/crm`, buyerUser.headers), 403);

      expect((await call('DELETE', `${base()}/connections/crm`, buyer.headers)).json().data).toEqual({ revoked: 1, revokedAtProvider: 1 });
      expect(revoked).toEqual(['POST']);
      expect((await call('GET', `${base()}/connections`, buyerUser.headers)).json().data).toEqual([]);
      expect(await t.platform.db.query('select 1 from rm_app_connections where tenant = $1', [buyer.companyUuid])).toHaveLength(0);
      errorOf(await call('DELETE', `${base()}/connections/crm`, buyer.headers), 404);
      // The tokens were never in clear in an answer, the log or the events.
      expect(answers.join('\n')).not.toContain(tokens.access_token);
      expect(t.logs.join('\n')).not.toContain(tokens.access_token);
      expect(JSON.stringify(await t.platform.store.readStream(buyer.companyUuid, `installation-${appUuid}`))).not.toContain(tokens.access_token);
    } finally {
      await provider.stop();
    }
  });

  it('401 without a token on every OAuth route', async () => {
    for (const [m, url] of [['POST', `${base()}/oauth/crm/start`], ['GET', `${base()}/connections`], ['DELETE', `${base()}/connections/crm`]] as const) errorOf(await call(m, url, {}), 401);
  });
});

describe('rebuild', () => {
  it('replaying the log gives the same app and installation rows', async () => {
    const tables = ['rm_apps', 'rm_app_cms_modules', 'rm_app_installations', 'rm_app_user_settings', 'rm_app_secrets', 'rm_app_connections'];
    const rows = async () => Promise.all(tables.map((table) => t.platform.db.query(`select * from ${table} order by 1, 2, 3`)));
    const live = await rows();
    expect(live[2]!.length).toBeGreaterThan(0);
    expect(live[4]!.length).toBeGreaterThan(0);
    await rebuildReadModels(t.platform.db, t.platform.store, projections);
    expect(await rows()).toEqual(live);
  });
});

describe('the canary secret', () => {
  it('appears in no answer, no event, no log line and no outbound request of the run', async () => {
    expect(answers.length).toBeGreaterThan(50);
    expect(t.logs.length).toBeGreaterThan(50);
    const events = [];
    for (let batch = await t.platform.store.readAll({ maxCount: 1000 }); batch.length; batch = await t.platform.store.readAll({ after: batch.at(-1)!.checkpoint, maxCount: 1000 })) events.push(...batch);
    expect(events.some((e) => e.type === 'InstallationSecretSet')).toBe(true);
    const haystacks = { answers: answers.join('\n'), logs: t.logs.join('\n'), events: JSON.stringify(events), outbound: receiver.received.map((r) => r.body + JSON.stringify(r.headers)).join('\n') };
    // The haystacks hold what they should: a non-secret setting is in the answers and the log.
    expect(haystacks.answers).toContain('Regards, U');
    expect(haystacks.events).toContain('Regards, U');
    expect(haystacks.logs).toContain(`/installation/secrets/apiKey`);
    for (const [where, text] of Object.entries(haystacks)) expect(text.includes(CANARY), `canary found in ${where}`).toBe(false);
  });
});
