import { gzipSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/files/storage/open-storage.js';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { waitFor } from '../support/webhook-receiver.js';
import { caller, errorOf, startAppsApp } from './apps-fixtures.js';

let t: Awaited<ReturnType<typeof startAppsApp>>;
let call: ReturnType<typeof caller>;
let maker: TestTenant;
let makerUser: TestTenant;
let buyer: TestTenant;
const MAX = 8192;

beforeAll(async () => {
  t = await startAppsApp({ APPS_PACKAGE_MAX_BYTES: String(MAX) });
  call = caller(t.app);
  maker = await signUpWithCompany(t.app);
  makerUser = await joinCompany(t.app, maker, { role: 'USER' });
  buyer = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

type Entry = { name: string; type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'fifo'; linkname?: string; content?: string | Buffer };
async function tarOf(entries: Entry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const e of entries) {
    const body = e.content === undefined ? undefined : Buffer.from(e.content);
    pack.entry({ name: e.name, type: e.type ?? 'file', linkname: e.linkname, size: body?.length ?? 0 }, body ?? Buffer.alloc(0));
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}
const mod = (name: string) => ({ name, label: name, fields: [{ name: 'title', type: 'text', required: true }] });
const newApp = async (label: string, who = maker) => (await call('POST', '/apps/public', who.headers, { label })).json().data.uuid as string;
const publish = (uuid: string, tarball: Buffer | string, modules = [mod('hero')], who = maker) =>
  call('POST', `/apps/${uuid}/cms-modules/package`, who.headers, { tarball: typeof tarball === 'string' ? tarball : tarball.toString('base64'), modules });

describe('POST /apps/{appUuid}/cms-modules/package (spec 4.12)', () => {
  it('keeps a checked package in the files storage and replaces the catalog as the PUT does', async () => {
    const uuid = await newApp('Packaged blocks');
    const tarball = await tarOf([{ name: 'modules/', type: 'directory' }, { name: 'modules/hero/index.js', content: 'export default 1' }, { name: './modules/hero/style.css', content: 'a{}' }]);
    const res = await publish(uuid, tarball, [mod('hero'), mod('gallery')]);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.package).toMatchObject({ size: tarball.length, files: ['modules/hero/index.js', 'modules/hero/style.css'], gzipped: false, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(data.modules.map((m: { name: string; retired: boolean }) => [m.name, m.retired])).toEqual([['gallery', false], ['hero', false]]);

    // The bytes, as sent, in the files storage under the app and the hash.
    const storage = await openStorage(t.config);
    const stored = await storage.get(`apps/${uuid}/packages/${data.package.sha256}.tar`);
    const chunks: Buffer[] = [];
    for await (const c of stored!) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(tarball)).toBe(true);

    // A second package (gzipped) retires what it leaves out, as the PUT does.
    const second = await publish(uuid, gzipSync(await tarOf([{ name: 'quote.js', content: 'q' }])), [mod('quote')]);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().data.package.gzipped).toBe(true);
    expect(second.json().data.modules.map((m: { name: string; retired: boolean }) => [m.name, m.retired])).toEqual([['quote', false], ['gallery', true], ['hero', true]]);
    const history = await t.platform.store.readStream(maker.companyUuid, `app-${uuid}`);
    expect(history.map((e) => e.type)).toEqual(['AppCreated', 'AppCmsPackagePublished', 'AppCmsModulesReplaced', 'AppCmsPackagePublished', 'AppCmsModulesReplaced']);
  });

  it('refuses hostile tarballs with a 400 naming the reason, and stores nothing', async () => {
    const uuid = await newApp('Hostile');
    const bomb = gzipSync(await tarOf([{ name: 'zeros.bin', content: Buffer.alloc(200_000) }]));
    expect(bomb.length).toBeLessThan(MAX);
    const cases: [string, Buffer | string, RegExp][] = [
      ['absolute path', await tarOf([{ name: '/etc/cron.d/evil', content: 'x' }]), /absolute/],
      ['dot-dot', await tarOf([{ name: 'a/../../evil.js', content: 'x' }]), /\.\./],
      ['leading dot-dot', await tarOf([{ name: '../evil.js', content: 'x' }]), /\.\./],
      ['backslash', await tarOf([{ name: '..\\evil.js', content: 'x' }]), /backslash/],
      ['symlink out', await tarOf([{ name: 'passwd', type: 'symlink', linkname: '/etc/passwd' }]), /symlink/],
      ['hard link', await tarOf([{ name: 'a.js', content: 'x' }, { name: 'b.js', type: 'link', linkname: '../../etc/passwd' }]), /link/],
      ['device', await tarOf([{ name: 'null', type: 'character-device' }]), /character-device/],
      ['fifo', await tarOf([{ name: 'pipe', type: 'fifo' }]), /fifo/],
      ['twice', await tarOf([{ name: 'a.js', content: 'x' }, { name: './a.js', content: 'y' }]), /twice/],
      ['gzip bomb', bomb, /unpack/],
      ['not a tar', Buffer.from('this is not a tar archive at all, just words '.repeat(20)), /not a tar|no file/],
      ['empty tar', await tarOf([]), /no file/],
      ['not base64', 'not*base64!', /base64/],
      ['too large', Buffer.alloc(MAX + 1, 1), /larger/],
    ];
    for (const [what, tarball, reason] of cases) {
      const body = errorOf(await publish(uuid, tarball), 400);
      expect(JSON.stringify(body.errors), what).toMatch(reason);
    }
    const history = await t.platform.store.readStream(maker.companyUuid, `app-${uuid}`);
    expect(history.map((e) => e.type)).toEqual(['AppCreated']);
    expect((await call('GET', `/apps/${uuid}/cms-modules`, maker.headers)).json().data).toEqual([]);
  });

  it('401, 403, 404 (another company, a missing app); bad manifests are a 400', async () => {
    const uuid = await newApp('Guarded');
    const tarball = await tarOf([{ name: 'a.js', content: 'x' }]);
    errorOf(await publish(uuid, tarball, [mod('a')], { ...maker, headers: {} } as TestTenant), 401);
    expect(errorOf(await publish(uuid, tarball, [mod('a')], makerUser), 403).scopes).toEqual(['apps:write']);
    errorOf(await publish(uuid, tarball, [mod('a')], buyer), 404);
    errorOf(await publish('00000000-0000-4000-8000-000000000000', tarball), 404);
    errorOf(await publish(uuid, tarball, [mod('a'), mod('a')]), 400);
    errorOf(await publish(uuid, tarball, [{ name: 'Bad Name', label: 'x', fields: [] }] as never), 400);
  });
});

describe('POST /apps/{uuid}/migrate-v2 (spec 4.17)', () => {
  const runtimeOf = async (uuid: string) => (await call('GET', `/apps/public/${uuid}`, maker.headers)).json().data as { platformVersion: number; runtimeStatus: string; runtimeError: string | null };

  it('schedules the rebuild: version 1 serves while BUILDING, READY moves the app to version 2; once there it is a 409', async () => {
    const uuid = await newApp('Migrating');
    expect(await runtimeOf(uuid)).toMatchObject({ platformVersion: 1, runtimeStatus: 'NOT_BUILT', runtimeError: null });
    const res = await call('POST', `/apps/${uuid}/migrate-v2`, maker.headers, { runtime: 'node22' });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ appUuid: uuid, platformVersion: 2, activeVersion: 1, runtimeStatus: 'BUILDING' });
    const ready = await waitFor(async () => ((await runtimeOf(uuid)).runtimeStatus === 'READY' ? runtimeOf(uuid) : null), 30_000, 'READY (the first build also waits for the reactor to start and catch up)');
    expect(ready).toMatchObject({ platformVersion: 2, runtimeStatus: 'READY', runtimeError: null });
    errorOf(await call('POST', `/apps/${uuid}/migrate-v2`, maker.headers), 409);
    const history = await t.platform.store.readStream(maker.companyUuid, `app-${uuid}`);
    expect(history.map((e) => e.type)).toEqual(['AppCreated', 'AppMigrationToV2Requested', 'AppRuntimeBuilt']);
    expect(history[2]!.metadata.causationId).toBe(`app-${uuid}@1`);
  });

  it('a failed rebuild leaves the app on version 1 and says why; fixed, it migrates', async () => {
    const uuid = await newApp('Broken');
    const put = await call('PUT', `/apps/public/${uuid}`, maker.headers, { label: 'Broken', settingsSchema: [{ name: 'sync', label: 'Sync', type: 'ACTION' }], appBars: [{ label: 'Go', location: 'RECORD', type: 'BUTTON' }] });
    expect(put.statusCode, put.body).toBe(200);
    expect((await call('POST', `/apps/${uuid}/migrate-v2`, maker.headers)).statusCode).toBe(202);
    const failed = await waitFor(async () => ((await runtimeOf(uuid)).runtimeStatus === 'FAILED' ? runtimeOf(uuid) : null), 10_000, 'FAILED');
    expect(failed.platformVersion).toBe(1);
    expect(failed.runtimeError).toContain('the ACTION setting sync needs the app\'s webhookUrl');
    expect(failed.runtimeError).toContain('the BUTTON app bar Go needs the app\'s webhookUrl');

    expect((await call('PUT', `/apps/public/${uuid}`, maker.headers, { label: 'Broken', webhookUrl: 'https://example.com/hook', settingsSchema: [{ name: 'sync', label: 'Sync', type: 'ACTION' }] })).statusCode).toBe(200);
    expect((await call('POST', `/apps/${uuid}/migrate-v2`, maker.headers, { runtime: 'node20' })).statusCode).toBe(202);
    await waitFor(async () => (await runtimeOf(uuid)).runtimeStatus === 'READY', 10_000, 'READY after the fix');
    expect(await runtimeOf(uuid)).toMatchObject({ platformVersion: 2, runtimeError: null });
  });

  it('one runtime of version 2 only; 401, 403, 404 for another company', async () => {
    const uuid = await newApp('Guarded migration');
    expect(JSON.stringify(errorOf(await call('POST', `/apps/${uuid}/migrate-v2`, maker.headers, { runtime: 'php5' }), 400).errors)).toContain('node22');
    errorOf(await call('POST', `/apps/${uuid}/migrate-v2`, maker.headers, { runtime: ['node20', 'node22'] }), 400);
    errorOf(await call('POST', `/apps/${uuid}/migrate-v2`, {}), 401);
    expect(errorOf(await call('POST', `/apps/${uuid}/migrate-v2`, makerUser.headers), 403).scopes).toEqual(['apps:write']);
    errorOf(await call('POST', `/apps/${uuid}/migrate-v2`, buyer.headers), 404);
    errorOf(await call('POST', '/apps/00000000-0000-4000-8000-000000000000/migrate-v2', maker.headers), 404);
    expect((await runtimeOf(uuid)).runtimeStatus).toBe('NOT_BUILT');
  });
});
