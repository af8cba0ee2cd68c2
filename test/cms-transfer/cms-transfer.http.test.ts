import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUp, signUpWithCompany, type TestTenant, type TestUser } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { call, data, expectErrorBody } from '../schema/schema-fixtures.js';

let t: TestApp;
let app: FastifyInstance;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', SUPER_ADMIN_EMAILS: 'root-transfer@platform.test' });
  app = t.app;
});
afterAll(async () => t?.close());

const base = (c: { companyUuid: string }) => `/api/v2/company/${c.companyUuid}/cms-transfer`;
const project = { projectId: 'acme-site', name: 'Acme site', repository: 'https://git.example.test/acme/site', schema: 'acme_site', previewHostname: 'acme.v2.example.test' };
const eventsOf = (tenant: string) => t.platform.db.query<{ type: string }>(`select type from events where tenant = $1 and stream_id = 'cms-transfer' order by revision`, [tenant]);

describe('CMS v2 transfer', () => {
  it('goes not_started -> attached -> cut_over -> rolled_back -> cut_over, each transition one event, repeats changing nothing', async () => {
    const owner = await signUpWithCompany(app);
    expect(await data(app, owner, 'GET', base(owner))).toEqual({
      companyUuid: owner.companyUuid, state: 'not_started', transferUuid: null, project: null,
      live: { runtime: 'v1', hostname: null, schema: null, repository: null }, v1: null, revision: -1, updatedAt: null, updatedByUuid: null,
    });

    const attached = await data(app, owner, 'POST', `${base(owner)}/attach`, project);
    expect(attached).toMatchObject({ state: 'attached', project, live: { runtime: 'v1' }, revision: 0, updatedByUuid: owner.userUuid });
    expect(await data(app, owner, 'POST', `${base(owner)}/attach`, project)).toEqual(attached);
    expect(await eventsOf(owner.companyUuid)).toHaveLength(1);

    const cut = await data(app, owner, 'POST', `${base(owner)}/cutover`, { hostname: 'WWW.Acme.example.test' });
    expect(cut).toMatchObject({
      state: 'cut_over', transferUuid: attached.transferUuid, revision: 1,
      live: { runtime: 'v2', hostname: 'www.acme.example.test', schema: 'acme_site', repository: project.repository },
      v1: { hostname: 'www.acme.example.test', subdomain: expect.any(String) },
    });
    expect(await data(app, owner, 'POST', `${base(owner)}/cutover`, { hostname: 'www.acme.example.test' })).toEqual(cut);
    // Live on v2 with other settings, or another project: the state does not allow it.
    const other = await call(app, owner, 'POST', `${base(owner)}/cutover`, { hostname: 'shop.acme.example.test' });
    expectErrorBody(other, 409);
    expect(other.body.errors[0].correctionSuggestion).toMatch(/Roll back/);
    expectErrorBody(await call(app, owner, 'POST', `${base(owner)}/attach`, { ...project, projectId: 'other' }), 409);

    const back = await data(app, owner, 'POST', `${base(owner)}/rollback`, { reason: 'broken images' });
    expect(back).toMatchObject({ state: 'rolled_back', live: { runtime: 'v1', hostname: 'www.acme.example.test', schema: null }, v1: cut.v1, project, revision: 2 });
    expect(await data(app, owner, 'POST', `${base(owner)}/rollback`)).toEqual(back);

    // The project is kept: cut over again (same transfer), then the history has every transition.
    expect(await data(app, owner, 'POST', `${base(owner)}/cutover`, { hostname: 'www.acme.example.test' })).toMatchObject({ state: 'cut_over', transferUuid: attached.transferUuid, revision: 3 });
    expect((await eventsOf(owner.companyUuid)).map((e) => e.type)).toEqual(['CmsTransferAttached', 'CmsTransferCutOver', 'CmsTransferRolledBack', 'CmsTransferCutOver']);
    const history = await call(app, owner, 'POST', `${base(owner)}/history/index`, {});
    expect(history.body).toMatchObject({ total: 4, page: 0, lastPage: 0 });
    expect(history.body.data.map((h: { fromState: string; toState: string }) => `${h.fromState}>${h.toState}`)).toEqual(['not_started>attached', 'attached>cut_over', 'cut_over>rolled_back', 'rolled_back>cut_over']);
    expect(history.body.data[2]).toMatchObject({ type: 'CmsTransferRolledBack', data: { reason: 'broken images', hostname: 'www.acme.example.test' }, byUuid: owner.userUuid, requestId: expect.any(String) });

    // A new attach after a rollback starts a new transfer.
    await data(app, owner, 'POST', `${base(owner)}/rollback`);
    const again = await data(app, owner, 'POST', `${base(owner)}/attach`, { ...project, projectId: 'acme-site-2' });
    expect(again).toMatchObject({ state: 'attached', project: { projectId: 'acme-site-2' }, live: { runtime: 'v1' }, v1: null });
    expect(again.transferUuid).not.toBe(attached.transferUuid);
  });

  it('takes 8 concurrent identical attaches, cutovers and rollbacks as one transition each, every answer the same', async () => {
    const owner = await signUpWithCompany(app);
    for (const [path, body] of [['attach', project], ['cutover', { hostname: 'www.c.example.test' }], ['rollback', {}]] as const) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => call(app, owner, 'POST', `${base(owner)}/${path}`, body)));
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(new Set(answers.map((r) => JSON.stringify(r.body.data))).size).toBe(1);
    }
    expect((await eventsOf(owner.companyUuid)).map((e) => e.type)).toEqual(['CmsTransferAttached', 'CmsTransferCutOver', 'CmsTransferRolledBack']);
  });

  it('refuses the transitions the state does not allow with 409 and the error body, and writes nothing', async () => {
    const owner = await signUpWithCompany(app);
    for (const path of ['cutover', 'rollback']) {
      const res = await call(app, owner, 'POST', `${base(owner)}/${path}`, { ...(path === 'cutover' ? { hostname: 'www.x.example.test' } : {}) });
      expectErrorBody(res, 409, 'GENERAL');
    }
    await data(app, owner, 'POST', `${base(owner)}/attach`, project);
    expectErrorBody(await call(app, owner, 'POST', `${base(owner)}/rollback`), 409);
    expect(await eventsOf(owner.companyUuid)).toHaveLength(1);
  });

  it('cuts over to the company customDomain by default; without one the hostname is a 400', async () => {
    const owner = await signUpWithCompany(app);
    await data(app, owner, 'POST', `${base(owner)}/attach`, project);
    expectErrorBody(await call(app, owner, 'POST', `${base(owner)}/cutover`), 400);
    await data(app, owner, 'PUT', `/api/v2/companies/${owner.companyUuid}/settings`, { customDomain: 'Site.Example.test' });
    expect(await data(app, owner, 'POST', `${base(owner)}/cutover`, { schema: 'override_schema' })).toMatchObject({ live: { runtime: 'v2', hostname: 'site.example.test', schema: 'override_schema' } });
  });

  it('refuses bad input with the error body', async () => {
    const owner = await signUpWithCompany(app);
    const bad: Record<string, unknown>[] = [
      { ...project, repository: 'javascript:alert(1)' },
      { ...project, schema: 'Robert"); drop table' },
      { ...project, projectId: '' },
      { ...project, previewHostname: 'http://x' },
      { ...project, extra: 1 },
      { projectId: 'p' },
    ];
    for (const body of bad) expectErrorBody(await call(app, owner, 'POST', `${base(owner)}/attach`, body), 400);
    await data(app, owner, 'POST', `${base(owner)}/attach`, project);
    expectErrorBody(await call(app, owner, 'POST', `${base(owner)}/cutover`, { hostname: 'a b' }), 400);
    expect(await eventsOf(owner.companyUuid)).toHaveLength(1);
  });

  it('answers 401 without a token, 403 to a non-admin member and without a company, 404 for another or no company on every route', async () => {
    const owner = await signUpWithCompany(app);
    const stranger = await signUpWithCompany(app);
    await data(app, owner, 'POST', `${base(owner)}/attach`, project);
    const member: TestTenant = await joinCompany(app, owner, { role: 'USER', scopes: ['webpages:write'] });
    const nobody: TestUser = await signUp(app);
    const routes: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['POST', '/attach', project],
      ['POST', '/cutover', { hostname: 'www.z.example.test' }],
      ['POST', '/rollback', {}],
      ['POST', '/history/index', {}],
    ];
    for (const [method, path, body] of routes) {
      const url = `${base(owner)}${path}`;
      expectErrorBody(await call(app, null, method as 'GET', url, body), 401);
      expectErrorBody(await call(app, member, method as 'GET', url, body), 403);
      expectErrorBody(await call(app, nobody, method as 'GET', url, body), 403);
      // Another company's transfer, and a company that does not exist: the same 404.
      expectErrorBody(await call(app, stranger, method as 'GET', url, body), 404, 'NOT_FOUND');
      expectErrorBody(await call(app, owner, method as 'GET', `/api/v2/company/00000000-0000-4000-8000-000000000000/cms-transfer${path}`, body), 404);
    }
    expect((await data(app, owner, 'GET', base(owner))).state).toBe('attached');
    expect(await eventsOf(stranger.companyUuid)).toHaveLength(0);
    expect((await data(app, stranger, 'GET', base(stranger))).state).toBe('not_started');
  });

  it('lets a SUPER_ADMIN act on any company, on that company', async () => {
    const owner = await signUpWithCompany(app);
    const other = await signUpWithCompany(app);
    const root = await signUp(app, { email: 'root-transfer@platform.test' });
    const dev = await joinCompany(app, owner, { role: 'DEVELOPER' });
    const outbox = (await data(app, dev, 'GET', '/api/v2/dev/mail')) as { to: string; text: string }[];
    const token = /token: (\S+)$/m.exec(outbox.find((m) => m.to === 'root-transfer@platform.test')!.text)![1];
    expect((await call(app, null, 'POST', '/api/v2/auth/verify', { token })).status).toBe(200);
    await data(app, root, 'POST', `/api/v2/auth/companies/${other.companyUuid}/select`);
    expect(await data(app, root, 'POST', `${base(owner)}/attach`, project)).toMatchObject({ companyUuid: owner.companyUuid, state: 'attached', updatedByUuid: root.userUuid });
    expect((await data(app, owner, 'GET', base(owner))).state).toBe('attached');
    expect((await data(app, other, 'GET', base(other))).state).toBe('not_started');
  });

  it('a rebuild of the read models gives the same status and history', async () => {
    const owner = await signUpWithCompany(app);
    await data(app, owner, 'POST', `${base(owner)}/attach`, project);
    await data(app, owner, 'POST', `${base(owner)}/cutover`, { hostname: 'www.r.example.test' });
    await data(app, owner, 'POST', `${base(owner)}/rollback`);
    const before = [await data(app, owner, 'GET', base(owner)), (await call(app, owner, 'POST', `${base(owner)}/history/index`, {})).body];
    const { cmsTransfersProjection } = await import('../../projections/cms-transfers.projection.js');
    const events = await t.platform.store.readStream(owner.companyUuid, 'cms-transfer');
    await t.platform.db.query('delete from rm_cms_transfers where tenant = $1', [owner.companyUuid]);
    await t.platform.db.query('delete from rm_cms_transfer_history where tenant = $1', [owner.companyUuid]);
    for (const e of [...events, ...events]) await cmsTransfersProjection.apply(e, t.platform.db);
    expect([await data(app, owner, 'GET', base(owner)), (await call(app, owner, 'POST', `${base(owner)}/history/index`, {})).body]).toEqual(before);
  });
});
