import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { TestTenant } from '../support/actors.js';
import type { TestApp } from '../support/test-app.js';
import { call, data, expectErrorBody } from '../schema/schema-fixtures.js';
import { leadSchema, threeStepForm } from '../forms/form-fixtures.js';
import { pngBytes } from '../files/files-fixtures.js';
import {
  approvedApp, expectAsOfEqualsCaptured, joinCompany, liveThrough, signUpWithCompany, startHistoryApp, superAdmin, ticketObject, type Step,
} from './history-fixtures.js';

let t: TestApp & { done(): Promise<void> };
let admin: TestTenant;
let bare: TestTenant; // a USER of the company without scopes
let stranger: TestTenant; // another company's ADMIN
let ticket: { uuid: string; name: string };
let root: TestTenant; // a SUPER_ADMIN, with a company of its own selected

beforeAll(async () => {
  t = await startHistoryApp();
  admin = await signUpWithCompany(t.app);
  bare = await joinCompany(t.app, admin, { role: 'USER', scopes: [] });
  stranger = await signUpWithCompany(t.app);
  ticket = await ticketObject(t, admin);
  root = await superAdmin(t, await signUpWithCompany(t.app));
});
afterAll(async () => t.done());

interface HistoryEntry {
  revision: number;
  type: string;
  occurredAt: number;
  user: { uuid: string } | null;
  requestId: string;
  correlationId: string;
  causationId: string | null;
  changes: Record<string, { before: unknown; after: unknown }>;
  data: Record<string, unknown>;
}

const historyOf = async (who: TestTenant, url: string, query = 'limit=100') => (await data(t.app, who, 'GET', `${url}?${query}`)) as HistoryEntry[];

/** What every kind's history must show after its steps: the types oldest first, each by the admin, with a requestId. */
async function expectHistory(url: string, types: string[]) {
  const entries = await historyOf(admin, url);
  expect(entries.map((e) => e.type)).toEqual([...types].reverse());
  expect(entries.map((e) => e.revision)).toEqual(types.map((_, i) => i).reverse());
  for (const e of entries) {
    expect(e.user?.uuid).toBe(admin.userUuid);
    expect(e.requestId).toEqual(expect.any(String));
    expect(e.requestId.length).toBeGreaterThan(0);
    expect(Object.keys(e).sort()).toEqual(['causationId', 'changes', 'correlationId', 'data', 'occurredAt', 'requestId', 'revision', 'type', 'user']);
  }
  // Paginated as records' history: newest first, `limit` a page.
  const page = await call(t.app, admin, 'GET', `${url}?limit=2&page=1`);
  expect(page.body).toMatchObject({ total: types.length, page: 1, perPage: 2, lastPage: Math.ceil(types.length / 2) - 1 });
  expect(page.body.data.map((e: HistoryEntry) => e.revision)).toEqual(entries.slice(2, 4).map((e) => e.revision));
  return [...entries].reverse(); // oldest first, for the assertions on values
}

/** 401 without a token, 404 for another company and for an unknown uuid, on both the history and asOf; 400 for a bad asOf. */
async function expectRefusals(getUrl: (uuid: string) => string, historyUrl: (uuid: string) => string, uuid: string, forbidden?: TestTenant) {
  const sep = getUrl(uuid).includes('?') ? '&' : '?';
  expectErrorBody(await call(t.app, null, 'GET', historyUrl(uuid)), 401);
  expectErrorBody(await call(t.app, null, 'GET', `${getUrl(uuid)}${sep}asOf=0`), 401);
  expectErrorBody(await call(t.app, stranger, 'GET', historyUrl(uuid)), 404);
  expectErrorBody(await call(t.app, stranger, 'GET', `${getUrl(uuid)}${sep}asOf=0`), 404);
  const missing = randomUUID();
  expectErrorBody(await call(t.app, admin, 'GET', historyUrl(missing)), 404);
  expectErrorBody(await call(t.app, admin, 'GET', `${getUrl(missing)}${sep}asOf=0`), 404);
  expectErrorBody(await call(t.app, admin, 'GET', `${getUrl(uuid)}${sep}asOf=yesterday`), 400);
  expectErrorBody(await call(t.app, admin, 'GET', `${historyUrl(uuid)}?limit=0`), 400);
  // Before it existed: the same 404 with a suggestion pointing at the history.
  const before = await call(t.app, admin, 'GET', `${getUrl(uuid)}${sep}asOf=2001-01-01T00:00:00Z`);
  expectErrorBody(before, 404);
  expect(before.body.errors[0].correctionSuggestion).toMatch(/history/);
  if (forbidden) {
    expectErrorBody(await call(t.app, forbidden, 'GET', historyUrl(uuid)), 403);
    expectErrorBody(await call(t.app, forbidden, 'GET', `${getUrl(uuid)}${sep}asOf=0`), 403);
  }
}

describe('forms', () => {
  it('history after create, update, delete, restore; asOf equals the GET of each time; refusals', async () => {
    const s = await leadSchema(t.app, admin);
    const body = threeStepForm(s);
    let uuid = '';
    const get = (u: string) => `/api/v2/forms/${u}`;
    const hist = (u: string) => `/api/v2/forms/${u}/history`;
    const steps: Step[] = [
      { type: 'FormUpdated', act: () => data(t.app, admin, 'PUT', get(uuid), { ...body, label: 'Lead wizard 2', published: false }) },
      { type: 'FormDeleted', act: () => data(t.app, admin, 'DELETE', get(uuid)), gone: true },
      { type: 'FormRestored', act: () => data(t.app, admin, 'POST', `${get(uuid)}/restore`) },
    ];
    const created = await data(t.app, admin, 'POST', '/api/v2/forms', body);
    uuid = created.uuid;
    const captured = new Map<number, unknown>([[0, await data(t.app, admin, 'GET', get(uuid))]]);
    for (const [r, v] of await liveThrough(t, admin, get(uuid), hist(uuid), steps)) captured.set(r, v);
    expect([...captured.keys()]).toEqual([0, 1, 3]);

    const [c, u, d, r] = await expectHistory(hist(uuid), ['FormCreated', 'FormUpdated', 'FormDeleted', 'FormRestored']);
    expect(c!.changes.label).toEqual({ before: null, after: 'Lead wizard' });
    expect(u!.changes).toEqual({ label: { before: 'Lead wizard', after: 'Lead wizard 2' }, published: { before: true, after: false } });
    expect(d!.changes).toEqual({ deletedAt: { before: null, after: d!.occurredAt } });
    expect(r!.changes).toEqual({ deletedAt: { before: d!.occurredAt, after: null } });

    await expectAsOfEqualsCaptured(t, admin, get(uuid), captured);
    // While deleted: the form as it was, deletedAt set.
    const deleted = (await data(t.app, admin, 'GET', `${get(uuid)}?asOf=2`)) as Record<string, unknown>;
    expect(deleted).toMatchObject({ label: 'Lead wizard 2', deletedAt: d!.occurredAt, deletedBy: { uuid: admin.userUuid }, revision: 2 });
    // A time: the newest revision at or before it.
    expect(await data(t.app, admin, 'GET', `${get(uuid)}?asOf=${new Date(c!.occurredAt).toISOString()}`)).toMatchObject({ revision: expect.any(Number), uuid });
    await expectRefusals(get, hist, uuid, bare);
  });

  it('a deleted form: its GET is a 404, its history and asOf still answer', async () => {
    const s = await leadSchema(t.app, admin);
    const created = await data(t.app, admin, 'POST', '/api/v2/forms', threeStepForm(s, { name: 'gone' }));
    await data(t.app, admin, 'DELETE', `/api/v2/forms/${created.uuid}`);
    expect((await call(t.app, admin, 'GET', `/api/v2/forms/${created.uuid}`)).status).toBe(404);
    expect((await historyOf(admin, `/api/v2/forms/${created.uuid}/history`)).map((e) => e.type)).toEqual(['FormDeleted', 'FormCreated']);
    expect(await data(t.app, admin, 'GET', `/api/v2/forms/${created.uuid}?asOf=0`)).toEqual(created);
  });
});

describe('views', () => {
  it('history, asOf, refusals (a personal view is another member\'s 404)', async () => {
    const get = (u: string) => `/api/v2/views/${u}`;
    const hist = (u: string) => `/api/v2/views/${u}/history`;
    const created = await data(t.app, admin, 'POST', '/api/v2/views', { name: 'Open', objectUuid: ticket.uuid, columns: [{ key: 'title', width: 200 }], pageSize: 50 });
    const uuid = created.uuid as string;
    const captured = new Map<number, unknown>([[0, await data(t.app, admin, 'GET', get(uuid))]]);
    const steps: Step[] = [
      { type: 'ViewUpdated', act: () => data(t.app, admin, 'PUT', get(uuid), { pageSize: 10, name: 'Open (10)' }) },
      { type: 'ViewDeleted', act: () => call(t.app, admin, 'DELETE', get(uuid)), gone: true },
      { type: 'ViewRestored', act: () => data(t.app, admin, 'POST', `${get(uuid)}/restore`) },
    ];
    for (const [r, v] of await liveThrough(t, admin, get(uuid), hist(uuid), steps)) captured.set(r, v);
    const [, u] = await expectHistory(hist(uuid), ['ViewCreated', 'ViewUpdated', 'ViewDeleted', 'ViewRestored']);
    expect(u!.changes).toEqual({ pageSize: { before: 50, after: 10 }, name: { before: 'Open', after: 'Open (10)' } });
    expect(u!.data).toEqual({ changes: { pageSize: 10, name: 'Open (10)' } });
    await expectAsOfEqualsCaptured(t, admin, get(uuid), captured);
    await expectRefusals(get, hist, uuid);
    // Personal: another member of the company sees neither.
    expectErrorBody(await call(t.app, bare, 'GET', hist(uuid)), 404);
    expectErrorBody(await call(t.app, bare, 'GET', `${get(uuid)}?asOf=0`), 404);
  });
});

describe('saved filters', () => {
  it('history, asOf, refusals', async () => {
    const get = (u: string) => `/api/v2/filters/${u}`;
    const hist = (u: string) => `/api/v2/filters/${u}/history`;
    const created = await data(t.app, admin, 'POST', '/api/v2/filters', { name: 'Mine', objectName: ticket.name, filters: [{ key: 'status', operator: 'equals', value: 'open' }] });
    const uuid = created.uuid as string;
    const captured = new Map<number, unknown>([[0, await data(t.app, admin, 'GET', get(uuid))]]);
    const steps: Step[] = [
      { type: 'SavedFilterUpdated', act: () => data(t.app, admin, 'PUT', get(uuid), { name: 'Mine, renamed' }) },
      { type: 'SavedFilterDeleted', act: () => call(t.app, admin, 'DELETE', get(uuid)), gone: true },
      { type: 'SavedFilterRestored', act: () => data(t.app, admin, 'PATCH', get(uuid)) },
      { type: 'SavedFilterUpdated', act: () => data(t.app, admin, 'PUT', get(uuid), { filters: [] }) },
    ];
    for (const [r, v] of await liveThrough(t, admin, get(uuid), hist(uuid), steps)) captured.set(r, v);
    const [, u, , , u2] = await expectHistory(hist(uuid), ['SavedFilterCreated', 'SavedFilterUpdated', 'SavedFilterDeleted', 'SavedFilterRestored', 'SavedFilterUpdated']);
    expect(u!.changes).toEqual({ name: { before: 'Mine', after: 'Mine, renamed' } });
    expect(Object.keys(u2!.changes)).toEqual(['filters']);
    expect(u2!.changes.filters!.after).toEqual([]);
    await expectAsOfEqualsCaptured(t, admin, get(uuid), captured);
    await expectRefusals(get, hist, uuid);
  });
});

describe('webhooks', () => {
  it('history and asOf never show the signing secret; refusals', async () => {
    const get = (u: string) => `/api/v2/webhooks/${u}`;
    const hist = (u: string) => `/api/v2/webhooks/${u}/history`;
    const secret = 'whsec_SECRETCANARYONE0000000000000000';
    const rotated = 'whsec_SECRETCANARYTWO0000000000000000';
    const created = await data(t.app, admin, 'POST', '/api/v2/webhooks', { url: 'http://127.0.0.1:9/in', secret, topic: `record.${ticket.name}.created`, name: 'first' });
    const uuid = created.uuid as string;
    const captured = new Map<number, unknown>([[0, await data(t.app, admin, 'GET', get(uuid))]]);
    const steps: Step[] = [
      { type: 'WebhookUpdated', act: () => data(t.app, admin, 'PUT', get(uuid), { name: 'second', maxRetries: 2 }) },
      { type: 'WebhookUpdated', act: () => data(t.app, admin, 'PUT', get(uuid), { secret: rotated }) },
      { type: 'WebhookDeleted', act: () => call(t.app, admin, 'DELETE', get(uuid)), gone: true },
    ];
    for (const [r, v] of await liveThrough(t, admin, get(uuid), hist(uuid), steps)) captured.set(r, v);
    const [, u, rot] = await expectHistory(hist(uuid), ['WebhookCreated', 'WebhookUpdated', 'WebhookUpdated', 'WebhookDeleted']);
    expect(u!.changes).toEqual({ name: { before: 'first', after: 'second' }, maxRetries: { before: created.maxRetries, after: 2 } });
    expect(rot!.changes).toEqual({});
    expect(rot!.data).toEqual({ changes: {}, secretRotated: true });
    await expectAsOfEqualsCaptured(t, admin, get(uuid), captured);
    const answers = [
      (await call(t.app, admin, 'GET', hist(uuid))).body,
      ...(await Promise.all([0, 1, 2, 3].map(async (r) => (await call(t.app, admin, 'GET', `${get(uuid)}?asOf=${r}`)).body))),
    ];
    for (const a of answers) expect(JSON.stringify(a)).not.toMatch(/SECRETCANARY/);
    await expectRefusals(get, hist, uuid, bare);
  });
});

describe('files', () => {
  it("the metadata's history (upload, delete, restore) and asOf; refusals", async () => {
    const get = (u: string) => `/api/v2/files/${u}`;
    const hist = (u: string) => `/api/v2/files/${u}/history`;
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/files?name=logo.png', headers: { ...admin.headers, 'content-type': 'application/octet-stream' }, payload: pngBytes() });
    expect(res.statusCode, res.body).toBe(201);
    const uuid = res.json().data.uuid as string;
    const captured = new Map<number, unknown>([[0, await data(t.app, admin, 'GET', get(uuid))]]);
    const steps: Step[] = [
      { type: 'FileDeleted', act: () => data(t.app, admin, 'DELETE', get(uuid)) },
      { type: 'FileRestored', act: () => data(t.app, admin, 'POST', `${get(uuid)}/restore`) },
    ];
    for (const [r, v] of await liveThrough(t, admin, get(uuid), hist(uuid), steps)) captured.set(r, v);
    const [c, d] = await expectHistory(hist(uuid), ['FileUploaded', 'FileDeleted', 'FileRestored']);
    expect(c!.changes).toMatchObject({ name: { before: null, after: 'logo.png' }, contentType: { before: null, after: 'image/png' }, size: { before: null, after: pngBytes().length } });
    expect(d!.changes).toEqual({ deletedAt: { before: null, after: d!.occurredAt } });
    await expectAsOfEqualsCaptured(t, admin, get(uuid), captured);
    await expectRefusals(get, hist, uuid);
  });
});

describe('company settings', () => {
  it('history of the settings, asOf; another company is a 404; SUPER_ADMIN reads any', async () => {
    const company = await signUpWithCompany(t.app);
    const get = (u: string) => `/api/v2/companies/${u}/settings`;
    const hist = (u: string) => `/api/v2/companies/${u}/settings/history`;
    const uuid = company.companyUuid;
    const captured = new Map<number, unknown>([[0, await data(t.app, company, 'GET', get(uuid))]]);
    const steps: Step[] = [
      { type: 'CompanySettingsUpdated', act: () => data(t.app, company, 'PUT', get(uuid), { website: 'https://one.example', accentColor: '#111111' }) },
      { type: 'CompanySettingsUpdated', act: () => data(t.app, company, 'PUT', get(uuid), { website: 'https://two.example' }) },
      { type: 'CompanyUpdated', act: () => data(t.app, company, 'PUT', `/api/v2/companies/${uuid}`, { name: 'Renamed Ltd' }) },
    ];
    for (const [r, v] of await liveThrough(t, company, get(uuid), hist(uuid), steps)) captured.set(r, v);
    const entries = [...(await historyOf(company, hist(uuid)))].reverse();
    expect(entries.map((e) => e.type)).toEqual(['CompanyCreated', 'CompanySettingsUpdated', 'CompanySettingsUpdated', 'CompanyUpdated']);
    expect(entries[1]!.changes).toEqual({ website: { before: null, after: 'https://one.example' }, accentColor: { before: null, after: '#111111' } });
    expect(entries[2]!.changes).toEqual({ website: { before: 'https://one.example', after: 'https://two.example' } });
    expect(entries[3]!.changes).toEqual({ name: { before: expect.any(String), after: 'Renamed Ltd' } });
    expect(entries.every((e) => e.user?.uuid === company.userUuid)).toBe(true);
    await expectAsOfEqualsCaptured(t, company, get(uuid), captured);
    expectErrorBody(await call(t.app, null, 'GET', hist(uuid)), 401);
    expectErrorBody(await call(t.app, admin, 'GET', hist(uuid)), 404);
    expectErrorBody(await call(t.app, admin, 'GET', `${get(uuid)}?asOf=1`), 404);
    expectErrorBody(await call(t.app, company, 'GET', `${get(uuid)}?asOf=bad`), 400);
    expect(await data(t.app, root, 'GET', `${get(uuid)}?asOf=1`)).toEqual(captured.get(1));
  });
});

describe('app installations', () => {
  it('history (install, settings, secret, rotate, uninstall) with secrets redacted; asOf; refusals', async () => {
    const maker = await signUpWithCompany(t.app);
    const appUuid = await approvedApp(t, maker, root);
    const get = (u: string) => `/api/v2/apps/${u}/installation`;
    const hist = (u: string) => `/api/v2/apps/${u}/installation/history`;
    const installed = await data(t.app, admin, 'POST', `/api/v2/apps/${appUuid}/install`, { settings: { region: 'eu' } });
    const clearSecrets = [installed.credentials.signingSecret, installed.credentials.clientSecret, 'sk_live_CANARY_VALUE_1234'];
    const captured = new Map<number, unknown>([[0, await data(t.app, admin, 'GET', get(appUuid))]]);
    expect(captured.get(0)).toEqual(installed.installation);
    let rotatedSecrets: string[] = [];
    const steps: Step[] = [
      { type: 'InstallationSettingsChanged', act: () => data(t.app, admin, 'PUT', `${get(appUuid)}/settings`, { region: 'us', limit: 20 }) },
      { type: 'InstallationSecretSet', act: () => data(t.app, admin, 'PUT', `${get(appUuid)}/secrets/apiKey`, { value: 'sk_live_CANARY_VALUE_1234' }) },
      {
        type: 'AppCredentialsRotated',
        act: async () => {
          const r = await data(t.app, admin, 'POST', `/api/v2/apps/${appUuid}/rotate`, {});
          rotatedSecrets = [r.credentials.signingSecret, r.credentials.clientSecret];
        },
      },
      { type: 'AppUninstalled', act: () => data(t.app, admin, 'POST', `/api/v2/apps/${appUuid}/uninstall`, { keepData: false, reason: 'trial over' }) },
    ];
    for (const [r, v] of await liveThrough(t, admin, get(appUuid), hist(appUuid), steps)) captured.set(r, v);
    const [inst, set, secret, rot, un] = await expectHistory(hist(appUuid), ['AppInstalled', 'InstallationSettingsChanged', 'InstallationSecretSet', 'AppCredentialsRotated', 'AppUninstalled']);
    expect(inst!.changes.settings).toEqual({ before: null, after: { region: 'eu', limit: 10 } });
    expect(set!.changes).toEqual({ settings: { before: { region: 'eu', limit: 10 }, after: { region: 'us', limit: 20 } } });
    expect(secret!.data).toEqual({ name: 'apiKey', ciphertext: '[redacted]' });
    expect(secret!.changes).toEqual({});
    expect((inst!.data.credentials as Record<string, unknown>)).toMatchObject({ signingSecret: '[redacted]', clientSecretHash: '[redacted]' });
    expect(Object.keys(rot!.changes).sort()).toEqual(['clientId', 'previousClientIdValidUntil']);
    expect(un!.changes).toEqual({ installed: { before: true, after: false }, settings: { before: { region: 'us', limit: 20 }, after: {} } });
    expect(captured.get(4)).toMatchObject({ installed: false, settings: {} });
    await expectAsOfEqualsCaptured(t, admin, get(appUuid), captured);
    const bodies = [
      (await call(t.app, admin, 'GET', hist(appUuid))).body,
      ...(await Promise.all([0, 1, 2, 3, 4].map(async (r) => (await call(t.app, admin, 'GET', `${get(appUuid)}?asOf=${r}`)).body))),
    ].map((b) => JSON.stringify(b));
    for (const text of bodies) for (const s of [...clearSecrets, ...rotatedSecrets]) expect(text).not.toContain(s);
    await expectRefusals(get, hist, appUuid, bare);
  });
});

describe("an app's webhooks", () => {
  it("history and asOf through the app's routes; the company's webhook is not the app's, nor the other way", async () => {
    const maker = await signUpWithCompany(t.app);
    const appUuid = await approvedApp(t, maker, root);
    await data(t.app, admin, 'POST', `/api/v2/apps/${appUuid}/install`, { settings: { region: 'eu' } });
    const appBase = `/api/v2/apps/${appUuid}/webhooks`;
    const hook = await data(t.app, admin, 'POST', appBase, { url: 'http://127.0.0.1:9/app', secret: 'whsec_APPCANARY000000000000000000000', topic: `record.${ticket.name}.created`, name: 'app-one' });
    const before = await data(t.app, admin, 'GET', `${appBase}/${hook.uuid}`);
    await data(t.app, admin, 'PUT', `${appBase}/${hook.uuid}`, { name: 'app-two' });
    const entries = await historyOf(admin, `${appBase}/${hook.uuid}/history`);
    expect(entries.map((e) => [e.type, e.changes.name?.after])).toEqual([['WebhookUpdated', 'app-two'], ['WebhookCreated', 'app-one']]);
    expect(await data(t.app, admin, 'GET', `${appBase}/${hook.uuid}?asOf=0`)).toEqual(before);
    expect(JSON.stringify(entries)).not.toMatch(/APPCANARY/);
    const own = await data(t.app, admin, 'POST', '/api/v2/webhooks', { url: 'http://127.0.0.1:9/own', secret: 'whsec_OWN00000000000000000000000000000', topic: `record.${ticket.name}.created` });
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/webhooks/${hook.uuid}/history`), 404);
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/webhooks/${hook.uuid}?asOf=0`), 404);
    expectErrorBody(await call(t.app, admin, 'GET', `${appBase}/${own.uuid}/history`), 404);
    expectErrorBody(await call(t.app, stranger, 'GET', `${appBase}/${hook.uuid}/history`), 404);
  });
});
