import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { caller, errorOf, startAppsApp, superAdmin } from './apps-fixtures.js';

let t: Awaited<ReturnType<typeof startAppsApp>>;
let call: ReturnType<typeof caller>;
let maker: TestTenant;
let buyer: TestTenant;
let buyerUser: TestTenant;
let root: TestTenant;

const schema = [
  { name: 'region', label: 'Region', type: 'SINGLE_SELECT', options: [{ value: 'eu', label: 'EU' }, { value: 'us', label: 'US' }], required: true },
  { name: 'limit', label: 'Limit', type: 'NUMBER', default: 10 },
  { name: 'signature', label: 'Signature', type: 'TEXT', scope: 'USER' },
  { name: 'apiKey', label: 'API key', type: 'SECRET' },
  { name: 'sync', label: 'Sync now', type: 'ACTION' },
];

async function approvedApp(label: string, category = 'CRM', settingsSchema: unknown[] = schema) {
  const created = (await call('POST', '/apps/public', maker.headers, { label })).json().data;
  const put = await call('PUT', `/apps/public/${created.uuid}`, maker.headers, { label, category, settingsSchema });
  expect(put.statusCode, put.body).toBe(200);
  await call('POST', `/apps/public/${created.uuid}/submit`, maker.headers);
  expect((await call('POST', `/apps/public/${created.uuid}/review`, root.headers, { outcome: 'APPROVE', feedback: 'Looks good' })).statusCode).toBe(200);
  return created.uuid as string;
}

beforeAll(async () => {
  t = await startAppsApp();
  call = caller(t.app);
  maker = await signUpWithCompany(t.app);
  buyer = await signUpWithCompany(t.app);
  buyerUser = await joinCompany(t.app, buyer, { role: 'USER' });
  root = await superAdmin(t.app, await signUpWithCompany(t.app));
});
afterAll(async () => t.close());

describe('apps: creation, creator view, review', () => {
  it('creates a public app in DRAFT; label is required; the creator view is the creator company\'s only', async () => {
    errorOf(await call('POST', '/apps/public', maker.headers, { description: 'no label' }), 400);
    const res = await call('POST', '/apps/public', maker.headers, { label: 'Mailer', description: 'Sends mail' });
    expect(res.statusCode).toBe(201);
    const app = res.json().data;
    expect(app).toMatchObject({ label: 'Mailer', description: 'Sends mail', visibility: 'PUBLIC', reviewState: 'DRAFT', category: 'OTHER', settingsSchema: [], appBars: [], revision: 0 });

    const view = (await call('GET', `/apps/public/${app.uuid}`, maker.headers)).json().data;
    const put = await call('PUT', `/apps/public/${app.uuid}`, maker.headers, { ...view, details: 'All the details', category: 'COMMUNICATION', settingsSchema: schema, appBars: [{ label: 'Compose', location: 'RECORD', type: 'IFRAME', url: 'https://mailer.example/bar' }] });
    expect(put.statusCode, put.body).toBe(200);
    const updated = put.json().data;
    expect(updated).toMatchObject({ details: 'All the details', category: 'COMMUNICATION', revision: 1 });
    expect(updated.settingsSchema).toHaveLength(5);
    expect(updated.settingsSchema[1]).toMatchObject({ name: 'limit', scope: 'COMPANY', required: false, default: 10 });
    expect(updated.appBars[0].uuid).toMatch(/^[0-9a-f-]{36}$/);
    // PUT of what GET answered changes nothing.
    expect((await call('PUT', `/apps/public/${app.uuid}`, maker.headers, updated)).json().data.revision).toBe(1);

    errorOf(await call('GET', `/apps/public/${app.uuid}`, buyer.headers), 404);
    errorOf(await call('PUT', `/apps/public/${app.uuid}`, buyer.headers, { label: 'Stolen' }), 404);
    errorOf(await call('GET', `/apps/${app.uuid}`, buyer.headers), 404);
    expect((await call('GET', `/apps/${app.uuid}`, maker.headers)).json().data.reviewState).toBe('DRAFT');
  });

  it('validates the settings schema, naming the field', async () => {
    const app = (await call('POST', '/apps/public', maker.headers, { label: 'Bad schema' })).json().data;
    const bad = [
      { name: 'a', label: 'A', type: 'SINGLE_SELECT' },
      { name: 'a', label: 'A again', type: 'TEXT', default: 5 },
      { name: 's', label: 'S', type: 'SECRET', default: 'x' },
    ];
    const body = errorOf(await call('PUT', `/apps/public/${app.uuid}`, maker.headers, { label: 'Bad schema', settingsSchema: bad }), 400);
    const fields = body.errors.map((e: { message: string }) => e.message.split(':')[0]);
    expect(fields).toEqual(expect.arrayContaining(['settingsSchema[0].options', 'settingsSchema[1].name', 'settingsSchema[1].default', 'settingsSchema[2].default']));
    errorOf(await call('PUT', `/apps/public/${app.uuid}`, maker.headers, { label: 'x', settingsSchema: [{ name: 'x', label: 'X', type: 'COLOR' }] }), 400);
    errorOf(await call('PUT', `/apps/public/${app.uuid}`, maker.headers, { label: 'x', category: 'NOPE' }), 400);
  });

  it('review: draft -> submitted -> approved / rejected / changes requested; SUPER_ADMIN only; a wrong transition is a 409', async () => {
    const app = (await call('POST', '/apps/public', maker.headers, { label: 'Reviewed' })).json().data;
    errorOf(await call('POST', `/apps/public/${app.uuid}/review`, root.headers, { outcome: 'APPROVE', feedback: 'too early' }), 409);
    expect((await call('POST', `/apps/public/${app.uuid}/submit`, maker.headers, { note: 'please' })).json().data.reviewState).toBe('SUBMITTED');
    errorOf(await call('POST', `/apps/public/${app.uuid}/submit`, maker.headers), 409);
    errorOf(await call('PUT', `/apps/public/${app.uuid}`, maker.headers, { label: 'Changed while in review' }), 409);
    expect(errorOf(await call('POST', `/apps/public/${app.uuid}/review`, maker.headers, { outcome: 'APPROVE', feedback: 'self' }), 403).roles).toEqual(['SUPER_ADMIN']);
    errorOf(await call('POST', `/apps/public/${app.uuid}/review`, root.headers, { outcome: 'MAYBE', feedback: 'x' }), 400);

    const changes = (await call('POST', `/apps/public/${app.uuid}/review`, root.headers, { outcome: 'REQUEST_CHANGES', feedback: 'Add a description', reviewerNotes: 'icon blurry' })).json().data;
    expect(changes).toMatchObject({ reviewState: 'CHANGES_REQUESTED', feedback: 'Add a description', reviewerNotes: 'icon blurry' });
    expect((await call('PUT', `/apps/public/${app.uuid}`, maker.headers, { label: 'Reviewed', description: 'Now described' })).statusCode).toBe(200);
    await call('POST', `/apps/public/${app.uuid}/submit`, maker.headers);
    const approved = (await call('POST', `/apps/public/${app.uuid}/review`, root.headers, { outcome: 'APPROVE', feedback: 'Thanks' })).json().data;
    expect(approved).toMatchObject({ reviewState: 'APPROVED', feedback: 'Thanks' });
    errorOf(await call('POST', `/apps/public/${app.uuid}/review`, root.headers, { outcome: 'REJECT', feedback: 'changed my mind' }), 409);
    expect((await call('GET', `/apps/${app.uuid}`, buyer.headers)).json().data).toMatchObject({ label: 'Reviewed', reviewState: 'APPROVED' });

    const rejected = (await call('POST', '/apps/public', maker.headers, { label: 'Rejected' })).json().data;
    await call('POST', `/apps/public/${rejected.uuid}/submit`, maker.headers);
    expect((await call('POST', `/apps/public/${rejected.uuid}/review`, root.headers, { outcome: 'REJECT', feedback: 'No' })).json().data.reviewState).toBe('REJECTED');
    errorOf(await call('POST', `/apps/public/${rejected.uuid}/submit`, maker.headers), 409);
    errorOf(await call('PUT', `/apps/public/${rejected.uuid}`, maker.headers, { label: 'Again' }), 409);

    // The review history is the app's stream.
    const history = await t.platform.store.readStream(maker.companyUuid, `app-${app.uuid}`);
    expect(history.map((e) => e.type)).toEqual(['AppCreated', 'AppSubmitted', 'AppReviewed', 'AppUpdated', 'AppSubmitted', 'AppReviewed']);
    expect(history[2]!.data).toMatchObject({ outcome: 'REQUEST_CHANGES', feedback: 'Add a description', reviewerNotes: 'icon blurry', reviewerUuid: root.userUuid });
  });

  it('index: approved public apps and own private ones, by category then name; my/index; categories', async () => {
    const zeta = await approvedApp('Zeta', 'ANALYTICS');
    const alpha = await approvedApp('alpha', 'MARKETING');
    const beta = await approvedApp('Beta', 'ANALYTICS');
    const mine = (await call('POST', '/apps/private', buyer.headers, { label: 'Buyer internal' })).json().data;
    const list = (await call('POST', '/apps/index', buyerUser.headers, { limit: 100 })).json();
    const uuids = list.data.map((a: { uuid: string }) => a.uuid);
    expect(uuids.indexOf(beta)).toBeLessThan(uuids.indexOf(zeta));
    expect(uuids.indexOf(zeta)).toBeLessThan(uuids.indexOf(alpha));
    expect(uuids).toContain(mine.uuid);
    expect(list.data.every((a: Record<string, unknown>) => !('settingsSchema' in a))).toBe(true);
    const cats = list.data.map((a: { category: string }) => a.category);
    expect(cats).toEqual([...cats].sort());
    expect((await call('POST', '/apps/index', maker.headers, { limit: 100 })).json().data.map((a: { uuid: string }) => a.uuid)).not.toContain(mine.uuid);
    const my = (await call('POST', '/apps/my/index', maker.headers, { limit: 100 })).json();
    expect(my.data.map((a: { label: string }) => a.label)).toEqual(expect.arrayContaining(['Mailer', 'Rejected', 'Zeta']));
    expect(my.data.map((a: { uuid: string }) => a.uuid)).not.toContain(mine.uuid);
    expect((await call('POST', '/apps/index', buyer.headers, { limit: 100, query: 'zet' })).json().data.map((a: { uuid: string }) => a.uuid)).toEqual([zeta]);
    const categories = (await call('GET', '/apps/categories', buyerUser.headers)).json().data;
    expect(categories).toContainEqual({ key: 'CRM', label: 'CRM' });
  });
});

describe('apps: install, uninstall, rotate', () => {
  it('installs an approved app with settings checked against the schema; not approved is refused', async () => {
    const draft = (await call('POST', '/apps/public', maker.headers, { label: 'Draft only' })).json().data;
    // The creator company installs its own app in any review state (spec 4.17); test/apps/app-tokens.http.test.ts.
    expect((await call('POST', `/apps/${draft.uuid}/install`, maker.headers)).statusCode).toBe(201);
    errorOf(await call('POST', `/apps/${draft.uuid}/install`, buyer.headers), 404);

    const uuid = await approvedApp('Installable');
    const missing = errorOf(await call('POST', `/apps/${uuid}/install`, buyer.headers, { settings: {} }), 400);
    expect(missing.errors[0].message).toContain('settings.region');
    const wrong = errorOf(await call('POST', `/apps/${uuid}/install`, buyer.headers, { settings: { region: 'mars', limit: 'ten', nope: 1, signature: 'x' } }), 400);
    expect(wrong.errors.map((e: { message: string }) => e.message.split(':')[0]).sort()).toEqual(['settings.limit', 'settings.nope', 'settings.region', 'settings.signature']);
    errorOf(await call('POST', `/apps/${uuid}/install`, buyerUser.headers, { settings: { region: 'eu' } }), 403);

    const res = await call('POST', `/apps/${uuid}/install`, buyer.headers, { settings: { region: 'eu' } });
    expect(res.statusCode, res.body).toBe(201);
    const { installation, credentials } = res.json().data;
    expect(installation).toMatchObject({ appUuid: uuid, installed: true, settings: { region: 'eu', limit: 10 }, clientId: credentials.clientId });
    expect(credentials.signingSecret).toMatch(/^whsec_/);
    errorOf(await call('POST', `/apps/${uuid}/install`, buyer.headers, { settings: { region: 'eu' } }), 409);
    expect((await call('GET', `/apps/${uuid}/me`, buyerUser.headers)).json().data).toMatchObject({ companyUuid: buyer.companyUuid, userUuid: buyerUser.userUuid, role: 'USER', installed: true });
    expect((await call('GET', `/apps/${uuid}/me`, maker.headers)).json().data.installed).toBe(false);

    // The event carries the sealed signing secret and the hash of the client secret, never either in clear.
    const events = await t.platform.store.readStream(buyer.companyUuid, `installation-${uuid}`);
    const raw = JSON.stringify(events);
    expect(raw).not.toContain(credentials.signingSecret);
    expect(raw).not.toContain(credentials.clientSecret);

    const rotated = (await call('POST', `/apps/${uuid}/rotate`, buyer.headers, { graceMs: 60_000 })).json().data;
    expect(rotated.credentials.clientId).not.toBe(credentials.clientId);
    expect(rotated.installation.previousClientIdValidUntil).toBeGreaterThan(Date.now());

    expect((await call('POST', `/apps/${uuid}/uninstall`, buyer.headers, { keepData: false, reason: 'testing' })).json().data.installed).toBe(false);
    errorOf(await call('POST', `/apps/${uuid}/uninstall`, buyer.headers), 404);
    errorOf(await call('POST', `/apps/${uuid}/rotate`, buyer.headers), 404);
    const again = await call('POST', `/apps/${uuid}/install`, buyer.headers, { settings: { region: 'us' } });
    expect(again.json().data.installation).toMatchObject({ installed: true, settings: { region: 'us', limit: 10 } });
  });

  it('a private app is installed for its company at once and is a 404 for every other company', async () => {
    const mine = (await call('POST', '/apps/private', maker.headers, { label: 'Maker internal' })).json().data;
    expect(mine).toMatchObject({ visibility: 'PRIVATE', reviewState: 'APPROVED' });
    expect((await call('GET', `/apps/${mine.uuid}/me`, maker.headers)).json().data.installed).toBe(true);
    errorOf(await call('POST', `/apps/public/${mine.uuid}/submit`, maker.headers), 409);
    for (const [m, url] of [['GET', `/apps/${mine.uuid}`], ['GET', `/apps/${mine.uuid}/me`], ['POST', `/apps/${mine.uuid}/install`], ['POST', `/apps/${mine.uuid}/uninstall`], ['POST', `/apps/${mine.uuid}/rotate`], ['GET', `/apps/public/${mine.uuid}`]] as const) {
      errorOf(await call(m, url, buyer.headers), 404);
    }
  });

  it('401 without a token, 403 without the scope, on every route', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    const routes = [
      ['POST', '/apps/index'], ['POST', '/apps/my/index'], ['GET', '/apps/categories'], ['GET', `/apps/${uuid}`], ['GET', `/apps/${uuid}/me`],
      ['POST', '/apps/public'], ['POST', '/apps/private'], ['GET', `/apps/public/${uuid}`], ['PUT', `/apps/public/${uuid}`], ['POST', `/apps/public/${uuid}/submit`],
      ['POST', `/apps/public/${uuid}/review`], ['POST', `/apps/${uuid}/install`], ['POST', `/apps/${uuid}/uninstall`], ['POST', `/apps/${uuid}/rotate`],
    ] as const;
    for (const [m, url] of routes) errorOf(await call(m, url, {}, m === 'GET' ? undefined : {}), 401);
    for (const [m, url] of [['POST', '/apps/public'], ['POST', '/apps/private'], ['PUT', `/apps/public/${uuid}`], ['POST', `/apps/public/${uuid}/submit`], ['POST', `/apps/${uuid}/install`], ['POST', `/apps/${uuid}/uninstall`], ['POST', `/apps/${uuid}/rotate`]] as const) {
      errorOf(await call(m, url, buyerUser.headers, { label: 'x' }), 403);
    }
    for (const [m, url] of [['GET', `/apps/${uuid}`], ['GET', `/apps/public/${uuid}`], ['GET', `/apps/${uuid}/me`]] as const) errorOf(await call(m, url, buyerUser.headers), 404);
  });
});

describe('CMS module catalogs (4.12)', () => {
  const mod = (name: string, label = name) => ({ name, label, fields: [{ name: 'title', type: 'text', required: true }] });

  it('PUT replaces the catalog: modules missing from it are retired, never deleted, and come back when sent again', async () => {
    const uuid = await approvedApp('Blocks', 'MARKETING', []);
    const first = await call('PUT', `/apps/${uuid}/cms-modules`, maker.headers, { modules: [mod('hero'), mod('gallery')] });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data.map((m: { name: string; retired: boolean }) => [m.name, m.retired])).toEqual([['gallery', false], ['hero', false]]);

    const second = (await call('PUT', `/apps/${uuid}/cms-modules`, maker.headers, { modules: [mod('gallery', 'Gallery 2'), mod('quote')] })).json().data;
    expect(second.map((m: { name: string; retired: boolean; label: string }) => [m.name, m.retired, m.label])).toEqual([['gallery', false, 'Gallery 2'], ['quote', false, 'quote'], ['hero', true, 'hero']]);
    const listed = (await call('GET', `/apps/${uuid}/cms-modules`, buyerUser.headers)).json().data;
    expect(listed.find((m: { name: string }) => m.name === 'hero')).toMatchObject({ retired: true, fields: [{ name: 'title', type: 'text', required: true }] });

    const back = (await call('PUT', `/apps/${uuid}/cms-modules`, maker.headers, { modules: [mod('hero'), mod('gallery', 'Gallery 2'), mod('quote')] })).json().data;
    expect(back.every((m: { retired: boolean }) => !m.retired)).toBe(true);
    const history = await t.platform.store.readStream(maker.companyUuid, `app-${uuid}`);
    expect(history.filter((e) => e.type === 'AppCmsModulesReplaced').map((e) => (e.data as { retired: string[] }).retired)).toEqual([[], ['hero'], []]);

    errorOf(await call('PUT', `/apps/${uuid}/cms-modules`, maker.headers, { modules: [mod('a'), mod('a')] }), 400);
    errorOf(await call('PUT', `/apps/${uuid}/cms-modules`, maker.headers, { modules: [{ name: 'b', label: 'B', fields: [{ name: 'x', type: 'video' }] }] }), 400);
    errorOf(await call('PUT', `/apps/${uuid}/cms-modules`, buyer.headers, { modules: [] }), 404);
    errorOf(await call('PUT', `/apps/${uuid}/cms-modules`, buyerUser.headers, { modules: [] }), 403);
    errorOf(await call('PUT', `/apps/${uuid}/cms-modules`, {}, { modules: [] }), 401);
    errorOf(await call('GET', `/apps/${uuid}/cms-modules`, {}), 401);
    const draft = (await call('POST', '/apps/public', maker.headers, { label: 'Draft blocks' })).json().data;
    errorOf(await call('GET', `/apps/${draft.uuid}/cms-modules`, buyer.headers), 404);
    expect((await call('GET', `/apps/${draft.uuid}/cms-modules`, maker.headers)).json().data).toEqual([]);
  });
});
