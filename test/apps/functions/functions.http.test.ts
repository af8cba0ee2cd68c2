import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, type TestTenant } from '../../support/actors.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';
import { aRecord, anObjectWith } from '../../records/records-fixtures.js';
import { caller, errorOf, startAppsApp } from '../apps-fixtures.js';
import { aDeployedApp, BUNDLE, FUNCTION_ENV, install } from './functions-fixtures.js';

let t: Awaited<ReturnType<typeof startAppsApp>>;
let call: ReturnType<typeof caller>;
let receiver: Receiver;
let maker: TestTenant;
let buyer: TestTenant;
let other: TestTenant;
let stranger: TestTenant;
let appUuid: string;
let firstDeploy: string;

beforeAll(async () => {
  t = await startAppsApp(FUNCTION_ENV);
  call = caller(t.app);
  receiver = await startReceiver();
  receiver.answer(() => ({ status: 200, body: 'pong' }));
  maker = await signUpWithCompany(t.app);
  buyer = await signUpWithCompany(t.app);
  other = await signUpWithCompany(t.app);
  stranger = await signUpWithCompany(t.app);
  ({ appUuid, deployUuid: firstDeploy } = await aDeployedApp(t.app, maker, stranger, ['records:read', 'records:write', 'fetch'], [{ name: 'region', label: 'Region', type: 'TEXT', default: 'eu' }]));
  await install(t.app, appUuid, buyer);
  await install(t.app, appUuid, other);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const invoke = (who: TestTenant, name: string, input?: unknown) => call('POST', `/apps/${appUuid}/installation/functions/${name}/invoke`, who.headers, { input });
const data = async (who: TestTenant, name: string, input?: unknown) => {
  const res = await invoke(who, name, input);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

describe('deploys', () => {
  it('a deploy is checked in the sandbox: a bundle that does not load, or lacks a named function, is a 400', async () => {
    const broken = errorOf(await call('POST', `/apps/${appUuid}/deploys`, maker.headers, { manifest: { functions: [{ name: 'f' }] }, code: 'exports.f = (' }), 400);
    expect(broken.errors[0].message).toMatch(/does not load: SyntaxError/);
    const missing = errorOf(await call('POST', `/apps/${appUuid}/deploys`, maker.headers, { manifest: { functions: [{ name: 'f' }, { name: 'g' }] }, code: 'exports.f = () => 1' }), 400);
    expect(missing.errors.map((e: { message: string }) => e.message)).toEqual(['manifest.functions[1].name: the bundle exports no function g']);
    errorOf(await call('POST', `/apps/${appUuid}/deploys`, maker.headers, { manifest: { functions: [{ name: 'f' }], scopes: ['everything'] }, code: 'exports.f = () => 1' }), 400);
    // A top-level infinite loop stops at the CPU limit, and the deploy is refused.
    expect(errorOf(await call('POST', `/apps/${appUuid}/deploys`, maker.headers, { manifest: { functions: [{ name: 'f' }] }, code: 'for(;;){}' }), 400).errors[0].message).toMatch(/CPU time|wall time/);
  });

  it('history, one deploy with its code, and a rollback that moves the active deploy back', async () => {
    const second = await call('POST', `/apps/${appUuid}/deploys`, maker.headers, { manifest: { functions: [{ name: 'echo' }], scopes: [] }, code: 'exports.echo = () => "second"', note: 'v2' });
    expect(second.statusCode, second.body).toBe(201);
    const v2 = second.json().data;
    expect(v2).toMatchObject({ number: 2, active: true, note: 'v2', size: 29 });
    const list = (await call('POST', `/apps/${appUuid}/deploys/index`, maker.headers, {})).json();
    expect(list.total).toBe(2);
    expect(list.data.map((d: { number: number; active: boolean }) => [d.number, d.active])).toEqual([[2, true], [1, false]]);
    expect((await call('GET', `/apps/${appUuid}/deploys/${v2.uuid}`, maker.headers)).json().data.code).toBe('exports.echo = () => "second"');
    expect((await data(buyer, 'echo', {})).result).toBe('second');
    errorOf(await invoke(buyer, 'readRecord', {}), 404);

    const back = await call('POST', `/apps/${appUuid}/deploys/${firstDeploy}/rollback`, maker.headers);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data).toMatchObject({ uuid: firstDeploy, number: 1, active: true });
    errorOf(await call('POST', `/apps/${appUuid}/deploys/${firstDeploy}/rollback`, maker.headers), 409);
    expect((await data(buyer, 'echo', { a: 1 })).result.input).toEqual({ a: 1 });
    const events = await t.platform.db.query<{ type: string; data: { reason?: string } }>(`select type, data from events where stream_id = $1 order by revision`, [`deploys-${appUuid}`]);
    expect(events.map((e) => `${e.type}${e.data.reason ? ` ${e.data.reason}` : ''}`)).toEqual(['AppDeployCreated', 'AppDeployActivated DEPLOY', 'AppDeployCreated', 'AppDeployActivated DEPLOY', 'AppDeployActivated ROLLBACK']);
  });

  it('401, 403 without apps:write, and another company (or a buyer) gets 404 for every deploy route', async () => {
    const dev = await joinCompany(t.app, maker, { role: 'USER' });
    const routes: [string, string, unknown?][] = [
      ['POST', `/apps/${appUuid}/deploys`, { manifest: { functions: [{ name: 'echo' }] }, code: BUNDLE }],
      ['POST', `/apps/${appUuid}/deploys/index`, {}],
      ['GET', `/apps/${appUuid}/deploys/${firstDeploy}`],
      ['POST', `/apps/${appUuid}/deploys/${firstDeploy}/rollback`],
    ];
    for (const [method, url, body] of routes) {
      errorOf(await call(method as 'GET', url, {}, body), 401);
      errorOf(await call(method as 'GET', url, dev.headers, body), 403);
      errorOf(await call(method as 'GET', url, buyer.headers, body), 404);
      errorOf(await call(method as 'GET', url, other.headers, body), 404);
    }
    errorOf(await call('GET', `/apps/${appUuid}/deploys/${buyer.userUuid}`, maker.headers), 404);
  });
});

describe('invocations and the host API', () => {
  it('a function gets its input, the installing company, the app and its settings', async () => {
    const out = await data(buyer, 'echo', { hello: 'world' });
    expect(out).toMatchObject({ status: 'SUCCEEDED', error: null, functionName: 'echo', deployUuid: firstDeploy });
    expect(out.result).toEqual({ input: { hello: 'world' }, company: buyer.companyUuid, app: appUuid, settings: { region: 'eu' }, job: null });
  });

  it('an infinite loop stops at the CPU limit while the server keeps serving', async () => {
    const looping = invoke(buyer, 'loop');
    const started = performance.now();
    const health = await t.app.inject({ method: 'GET', url: '/api/v2/health' });
    const healthMs = performance.now() - started;
    expect(health.statusCode).toBe(200);
    const res = await looping;
    const loopMs = performance.now() - started;
    expect(res.json().data).toMatchObject({ status: 'FAILED', error: { code: 'CPU_LIMIT' } });
    expect(res.json().data.cpuMs).toBeGreaterThanOrEqual(400);
    // The health answer came while the loop ran, not after it.
    expect(healthMs).toBeLessThan(loopMs);
  });

  it('a memory bomb stops at the memory ceiling; the next call runs in a fresh worker', async () => {
    const res = await data(buyer, 'bomb');
    expect(res).toMatchObject({ status: 'FAILED', error: { code: 'MEMORY_LIMIT' } });
    expect((await data(buyer, 'echo', 1)).status).toBe('SUCCEEDED');
  });

  it('output past its limit fails with OUTPUT_LIMIT', async () => {
    expect((await data(buyer, 'big')).error.code).toBe('OUTPUT_LIMIT');
  });

  it("reads and writes records of the installing company only; the write's history names the app", async () => {
    const object = await anObjectWith(t.app, buyer, { stage: { type: 'string', format: 'text' } });
    const mine = await aRecord(t.app, buyer, object.name, { stage: 'new' });
    const theirObject = await anObjectWith(t.app, other, { stage: { type: 'string', format: 'text' } });
    const theirs = await aRecord(t.app, other, theirObject.name, { stage: 'secret stage' });

    expect((await data(buyer, 'readRecord', { uuid: mine.uuid })).result).toMatchObject({ uuid: mine.uuid, objectName: object.name, properties: { stage: 'new' } });
    const foreign = await data(buyer, 'readRecord', { uuid: theirs.uuid });
    expect(foreign).toMatchObject({ status: 'FAILED', error: { code: 'FUNCTION_ERROR' } });
    expect(foreign.error.message).toContain('not found');
    expect(JSON.stringify(foreign)).not.toContain('secret stage');
    expect((await data(buyer, 'catchIt', { uuid: theirs.uuid })).result.caught).toMatch(/not found/);
    errorOf(await call('POST', '/apps/none/installation/functions/echo/invoke', buyer.headers, {}), 400);
    expect((await data(buyer, 'query', { objectName: theirObject.name })).error.message).toMatch(/not found|no object/i);
    const listed = await data(buyer, 'query', { objectName: object.name });
    expect(listed.result.data.map((r: { uuid: string }) => r.uuid)).toEqual([mine.uuid]);

    expect((await data(buyer, 'writeRecord', { uuid: mine.uuid, properties: { stage: 'won' } })).result).toMatchObject({ uuid: mine.uuid, changed: true });
    expect((await data(buyer, 'writeRecord', { uuid: theirs.uuid, properties: { stage: 'hacked' } })).status).toBe('FAILED');
    const history = (await call('GET', `/records/${mine.uuid}/history`, buyer.headers)).json().data;
    expect(history[0]).toMatchObject({ type: 'RecordUpdated', changes: { stage: { before: 'new', after: 'won' } }, app: { uuid: appUuid, label: 'Functions app' }, user: { uuid: buyer.userUuid } });
    expect(history[1]).toMatchObject({ type: 'RecordCreated', app: null });
    const created = await data(buyer, 'createRecord', { objectName: object.name, properties: { stage: 'from app' } });
    expect((await call('GET', `/records/${created.result.uuid}`, buyer.headers)).json().data.properties.stage).toBe('from app');
    const [theirRow] = await t.platform.db.query<{ vals: unknown }>('select vals from records where uuid = $1 and is_primary', [theirs.uuid]);
    expect(theirRow!.vals).toEqual({ stage: 'secret stage' });
  });

  it("reads its own installation's secret and state, never another installation's", async () => {
    expect((await call('PUT', `/apps/${appUuid}/installation/secrets/apiKey`, buyer.headers, { value: 'buyer-key' })).statusCode).toBe(200);
    expect((await call('PUT', `/apps/${appUuid}/installation/secrets/apiKey`, other.headers, { value: 'other-key' })).statusCode).toBe(200);
    expect((await data(buyer, 'secret', { name: 'apiKey' })).result).toBe('buyer-key');
    expect((await data(other, 'secret', { name: 'apiKey' })).result).toBe('other-key');
    expect((await data(buyer, 'secret', { name: 'missing' })).result).toBeNull();
    expect((await data(buyer, 'state', { n: 7 })).result).toBe(7);
    expect((await call('GET', `/apps/${appUuid}/installation/state`, buyer.headers)).json().data).toEqual({ n: 7 });
    expect((await call('GET', `/apps/${appUuid}/installation/state`, other.headers)).json().data).toEqual({});
  });

  it('fetch goes through the address guard: private and metadata addresses are refused', async () => {
    expect((await data(buyer, 'fetchIt', { url: `${receiver.url}/ping` })).result).toEqual({ status: 200, body: 'pong' });
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.1.2.3/', 'http://[::ffff:192.168.0.1]/', 'file:///etc/passwd']) {
      const res = await data(buyer, 'fetchIt', { url });
      expect(res, url).toMatchObject({ status: 'FAILED', error: { code: 'FUNCTION_ERROR' } });
      expect(res.error.message, url).toMatch(/fetch refused/);
    }
  });

  it("a scope the deploy did not declare is refused to the function", async () => {
    const dev = await signUpWithCompany(t.app);
    const res = await call('POST', '/apps/private', dev.headers, { label: 'No scopes' });
    const own = res.json().data.uuid;
    expect((await call('POST', `/apps/${own}/deploys`, dev.headers, { manifest: { functions: [{ name: 'fetchIt' }, { name: 'readRecord' }] }, code: BUNDLE })).statusCode).toBe(201);
    const fetched = (await call('POST', `/apps/${own}/installation/functions/fetchIt/invoke`, dev.headers, { input: { url: `${receiver.url}/x` } })).json().data;
    expect(fetched.error.message).toMatch(/does not declare the scope fetch/);
    const read = (await call('POST', `/apps/${own}/installation/functions/readRecord/invoke`, dev.headers, { input: { uuid: dev.userUuid } })).json().data;
    expect(read.error.message).toMatch(/does not declare the scope records:read/);
  });

  it('401, 403 without apps:functions, 404 for a company without the installation or an unknown function', async () => {
    const member = await joinCompany(t.app, buyer, { role: 'USER' });
    const runner = await joinCompany(t.app, buyer, { role: 'USER', scopes: ['apps:functions'] });
    const url = `/apps/${appUuid}/installation/functions/echo/invoke`;
    errorOf(await call('POST', url, {}, {}), 401);
    errorOf(await call('POST', url, member.headers, {}), 403);
    expect((await call('POST', url, runner.headers, {})).statusCode).toBe(200);
    errorOf(await call('POST', url, stranger.headers, {}), 404);
    errorOf(await call('POST', url, maker.headers, {}), 404);
    errorOf(await call('POST', `/apps/${appUuid}/installation/functions/nothing/invoke`, buyer.headers, {}), 404);
  });
});
