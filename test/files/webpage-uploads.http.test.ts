import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesProjection } from '../../projections/files.projection.js';
import { applyProjections } from '../../src/projections/apply.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { call, data, expectErrorBody } from '../schema/schema-fixtures.js';
import { aPage, aSite } from '../webpages/cms-fixtures.js';
import { get, pngBytes, sha256, upload } from './files-fixtures.js';

let t: TestApp;
let base: string;
let dataDir: string;
let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'files-webpages-'));
  t = await startTestApp({ DATA_DIR: dataDir, REACTORS_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10', APP_URL: 'http://pages.example.test' });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  [a, b] = await twoTenants(t.app);
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const reach = (url: string) => url.replace('http://pages.example.test', base);

describe('webpage uploads (spec 4.4)', () => {
  it("stores under the page's attachments folder and answers a public URL that needs no login", async () => {
    const { record, page } = await aPage(t.app, a, await aSite(t.app, a));
    const bytes = pngBytes(10_000);
    const res = await upload(base, a, `/api/v2/webpages/${page.uuid}/uploadFile`, [{ name: 'hero image.png', bytes }]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const url: string = res.body.data;
    expect(url).toMatch(new RegExp(`^http://pages\\.example\\.test/api/v2/files/public/${a.companyUuid}/[0-9a-f-]{36}/hero%20image\\.png$`));
    const got = await get(reach(url));
    expect(got.status).toBe(200);
    expect(got.body.equals(bytes)).toBe(true);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    const fileUuid = url.split('/').at(-2)!;
    expect(await data(t.app, a, 'GET', `/api/v2/files/${fileUuid}`)).toMatchObject({ visibility: 'public', pageUuid: page.uuid, sha256: sha256(bytes) });
    const [row] = await t.platform.db.query<{ storage_key: string }>('select storage_key from rm_files where tenant = $1 and file_uuid = $2', [a.companyUuid, fileUuid]);
    expect(row!.storage_key).toBe(`webpages/${a.companyUuid}/${page.uuid}/attachments/${fileUuid}`);

    // The record's uuid is not the page's.
    expectErrorBody(await upload(base, a, `/api/v2/webpages/${record.uuid}/uploadFile`, [{ name: 'x.png', bytes: pngBytes() }]), 404);
    // The same file under another company's path, or once deleted: 404.
    expect((await get(reach(url).replace(a.companyUuid, b.companyUuid))).status).toBe(404);
    await data(t.app, a, 'DELETE', `/api/v2/files/${fileUuid}`);
    expect((await get(reach(url))).status).toBe(404);
    await data(t.app, a, 'POST', `/api/v2/files/${fileUuid}/restore`);
    expect((await get(reach(url))).status).toBe(200);
  });

  it('uploadFile without a page; HTML is served as an attachment; a private file is never public', async () => {
    const res = await upload(base, a, '/api/v2/webpages/uploadFile', [{ name: 'x.html', bytes: Buffer.from('<html><script>alert(1)</script></html>') }]);
    expect(res.status).toBe(201);
    const got = await get(reach(res.body.data));
    expect(got.headers.get('content-type')).toBe('application/octet-stream');
    expect(got.headers.get('content-disposition')).toMatch(/^attachment;/);
    const priv = (await upload(base, a, '/api/v2/files', [{ name: 'p.txt', bytes: Buffer.from('private') }])).body.data;
    expect((await get(`${base}/api/v2/files/public/${a.companyUuid}/${priv.uuid}/p.txt`)).status).toBe(404);
  });

  it('a file name longer than the router takes in a path parameter still gives a public URL that answers (no 414)', async () => {
    // Names are kept up to 200 characters; the router takes 100 in a path parameter (after decoding).
    const name = `${'ü'.repeat(80)}${'a'.repeat(60)}😀.png`;
    const res = await upload(base, a, '/api/v2/webpages/uploadFile', [{ name, bytes: pngBytes() }]);
    expect(res.status).toBe(201);
    const got = await get(reach(res.body.data));
    expect(got.status).toBe(200);
    const segment = decodeURIComponent(res.body.data.split('/').at(-1));
    expect(segment.length).toBeLessThanOrEqual(100);
    expect(segment.endsWith('.png')).toBe(true);
    expect(got.headers.get('content-disposition')).toContain(encodeURIComponent(name).slice(0, 40));
  });

  it("another company's page is a 404 and nothing is stored", async () => {
    const { page: theirs } = await aPage(t.app, b, await aSite(t.app, b));
    expectErrorBody(await upload(base, a, `/api/v2/webpages/${theirs.uuid}/uploadFile`, [{ name: 'x.png', bytes: pngBytes() }]), 404);
    expectErrorBody(await upload(base, a, '/api/v2/webpages/00000000-0000-4000-8000-000000000000/uploadFile', [{ name: 'x.png', bytes: pngBytes() }]), 404);
    const unauth = await fetch(`${base}/api/v2/webpages/uploadFile`, { method: 'POST' });
    expect(unauth.status).toBe(401);
  });
});

describe('rebuild of rm_files', () => {
  it('replaying the log gives the same rows; replaying it twice changes nothing', async () => {
    const f1 = (await upload(base, a, '/api/v2/files', [{ name: 'r1.txt', bytes: Buffer.from('one') }])).body.data;
    const f2 = (await upload(base, a, '/api/v2/files', [{ name: 'r2.txt', bytes: Buffer.from('two') }])).body.data;
    await data(t.app, a, 'DELETE', `/api/v2/files/${f1.uuid}`);
    await data(t.app, a, 'DELETE', `/api/v2/files/${f2.uuid}`);
    await call(t.app, a, 'DELETE', `/api/v2/files/${f2.uuid}/permanent`);
    const rows = async () => ({
      files: await t.platform.db.query('select * from rm_files order by tenant, file_uuid'),
      attachments: await t.platform.db.query('select * from rm_file_attachments order by tenant, file_uuid, record_uuid, property'),
    });
    const live = await rows();
    expect(live.files.length).toBeGreaterThanOrEqual(2);
    await rebuildReadModels(t.platform.db, t.platform.store, [filesProjection]);
    expect(await rows()).toEqual(live);
    const all = await t.platform.store.readAll({ maxCount: 100_000 });
    await t.platform.db.transaction((tx) => applyProjections([filesProjection], all, tx));
    expect(await rows()).toEqual(live);
  });
});
