import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import type { TestApp } from '../support/test-app.js';
import { anObject, aProperty, call, data, expectErrorBody } from '../schema/schema-fixtures.js';
import { get, pngBytes, sha256, upload, uploadRaw } from './files-fixtures.js';

/** What a suite run needs from its adapter: the app on real HTTP and a look into the store. */
export interface FilesUnderTest {
  t: TestApp;
  /** The app's address (http://127.0.0.1:port). */
  base: string;
  kind: 'local' | 's3';
  /** Object keys under a prefix, and anything left half-written (temporary parts, open multipart uploads). */
  keys(prefix: string): Promise<string[]>;
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

/** The file-size limits every run of the suite uses (small, so the limits are cheap to pass). */
export const suiteLimits = { FILES_MAX_FILE_BYTES: String(256 * 1024), FILES_MAX_REQUEST_BYTES: String(1024 * 1024), FILES_MAX_PER_REQUEST: '30' };

/** The files contract: the same behaviour on every storage adapter. */
export function filesContract(name: string, start: () => Promise<FilesUnderTest>) {
  describe(`files on ${name}`, () => {
    let s: FilesUnderTest;
    let owner: TestTenant;
    /** Local URLs name APP_URL; the test reaches the app at its loopback address. */
    const reach = (url: string) => (s.kind === 'local' ? url.replace(/^https?:\/\/[^/]+/, s.base) : url);
    const urlOf = async (who: TestTenant, uuid: string, ttl?: number) => data(s.t.app, who, 'GET', `/api/v2/files/${uuid}/url${ttl ? `?ttlSeconds=${ttl}` : ''}`);
    const uploadedEvents = async (tenant: string) =>
      Number((await s.t.platform.db.query<{ n: number }>(`select count(*)::int as n from events where tenant = $1 and type = 'FileUploaded'`, [tenant]))[0]!.n);

    beforeAll(async () => {
      s = await start();
      owner = await signUpWithCompany(s.t.app);
    });
    afterAll(async () => s?.close());

    it('uploads a file: type sniffed from the bytes, name sanitised, SHA-256 kept; the signed URL gives the bytes back', async () => {
      const bytes = pngBytes(50_000);
      const res = await upload(s.base, owner, '/api/v2/files', [{ name: '../../etc/\u0000evil<script>.html', bytes, type: 'text/html' }]);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const file = res.body.data;
      expect(file).toMatchObject({ contentType: 'image/png', size: 50_000, sha256: sha256(bytes), visibility: 'private', deletedAt: null, createdBy: { uuid: owner.userUuid } });
      expect(file.name).toBe('evil_script_.html');
      expect(await data(s.t.app, owner, 'GET', `/api/v2/files/${file.uuid}`)).toEqual(file);
      expect(await s.keys(`files/${owner.companyUuid}/`)).toContain(`files/${owner.companyUuid}/${file.uuid}`);

      const { url, expiresAt } = await urlOf(owner, file.uuid);
      expect(expiresAt).toBeGreaterThan(Date.now());
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 300_000 + 1000);
      const got = await get(reach(url));
      expect(got.status).toBe(200);
      expect(got.body.equals(bytes)).toBe(true);
      expect(got.headers.get('content-type')).toBe('image/png');
      expect(got.headers.get('content-disposition')).toMatch(/^inline; filename="evil_script_.html"/);
      if (s.kind === 'local') expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('HTML and SVG are known from their bytes and only ever served as attachments', async () => {
      for (const [name, text, type] of [['page.png', '<!doctype html><html><script>alert(1)</script></html>', 'text/html'], ['pic.png', '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml']] as const) {
        const res = await upload(s.base, owner, '/api/v2/files', [{ name, bytes: Buffer.from(text), type: 'image/png' }]);
        expect(res.status).toBe(201);
        expect(res.body.data.contentType).toBe(type);
        const got = await get(reach((await urlOf(owner, res.body.data.uuid)).url));
        expect(got.status).toBe(200);
        expect(got.headers.get('content-type')).toBe('application/octet-stream');
        expect(got.headers.get('content-disposition')).toMatch(/^attachment;/);
      }
    });

    it('a raw body (application/octet-stream, ?name=) uploads like a multipart part: type from the bytes, name sanitised, SHA-256 kept', async () => {
      const bytes = pngBytes(200_000);
      const res = await uploadRaw(s.base, owner, `/api/v2/files?name=${encodeURIComponent('../x/raw<b>.html')}`, bytes);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const file = res.body.data;
      expect(file).toMatchObject({ name: 'raw_b_.html', contentType: 'image/png', size: 200_000, sha256: sha256(bytes), visibility: 'private', createdBy: { uuid: owner.userUuid } });
      expect(await s.keys(`files/${owner.companyUuid}/`)).toContain(`files/${owner.companyUuid}/${file.uuid}`);
      const got = await get(reach((await urlOf(owner, file.uuid)).url));
      expect(got.body.equals(bytes)).toBe(true);

      // Streamed without a length, and with no name at all.
      const text = Buffer.from('<!doctype html><html><body>hi</body></html>'.repeat(2000));
      const chunked = await uploadRaw(s.base, owner, '/api/v2/files', text, { chunked: true });
      expect(chunked.status, JSON.stringify(chunked.body)).toBe(201);
      expect(chunked.body.data).toMatchObject({ contentType: 'text/html', size: text.length, sha256: sha256(text) });
      expect(typeof chunked.body.data.name).toBe('string');

      // Any other body type is not taken as a file.
      expect((await uploadRaw(s.base, owner, '/api/v2/files', Buffer.from('hello'), { type: 'text/plain' })).status).toBeGreaterThanOrEqual(400);
    });

    it('a raw upload attaches to a record property, is refused (400) by its bytes, and is 413 past the limit: nothing left behind', async () => {
      const obj = await anObject(s.t.app, owner);
      await aProperty(s.t.app, owner, obj.uuid, { name: 'photo', type: 'string', format: 'file', options: [{ value: 'image/*', label: 'Images' }] });
      const record = await data(s.t.app, owner, 'POST', `/api/v2/${obj.name}`, { properties: {} });
      const png = await uploadRaw(s.base, owner, `/api/v2/files?recordUuid=${record.uuid}&property=photo&name=p.png`, pngBytes());
      expect(png.status, JSON.stringify(png.body)).toBe(201);
      expect((await data(s.t.app, owner, 'GET', `/api/v2/records/${record.uuid}`)).properties.photo).toBe(png.body.data.uuid);

      const tenant = owner.companyUuid;
      const events = await uploadedEvents(tenant);
      const keys = (await s.keys(`files/${tenant}/`)).length;
      expectErrorBody(await uploadRaw(s.base, owner, `/api/v2/files?recordUuid=${record.uuid}&property=photo&name=fake.png`, Buffer.from('not a picture at all')), 400, 'INVALID_FILE_TYPE');
      // Declared too long: refused before reading; streamed too long: cut by the count.
      expectErrorBody(await uploadRaw(s.base, owner, '/api/v2/files?name=big.bin', pngBytes(256 * 1024 + 1)), 413);
      expectErrorBody(await uploadRaw(s.base, owner, '/api/v2/files?name=big.bin', pngBytes(256 * 1024 + 1), { chunked: true }), 413);
      expect(await uploadedEvents(tenant)).toBe(events);
      expect((await s.keys(`files/${tenant}/`)).length).toBe(keys);
      expect(await s.leftovers()).toEqual([]);

      // Another company's record: 404, nothing stored.
      const other = await signUpWithCompany(s.t.app);
      expectErrorBody(await uploadRaw(s.base, other, `/api/v2/files?recordUuid=${record.uuid}&property=photo&name=p.png`, pngBytes()), 404);
      expect(await uploadedEvents(other.companyUuid)).toBe(0);
      expect(await s.keys(`files/${other.companyUuid}/`)).toEqual([]);
    });

    it('a URL past its TTL is refused (403); TTLs above 15 minutes are refused', async () => {
      const file = (await upload(s.base, owner, '/api/v2/files', [{ name: 'a.txt', bytes: Buffer.from('short-lived') }])).body.data;
      // 5 s: long enough for the first fetch on a loaded machine (S3 dates its signature to the second).
      const { url, expiresAt } = await urlOf(owner, file.uuid, 5);
      if (s.kind === 's3') expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('5');
      expect((await get(reach(url))).status).toBe(200);
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 1100));
      const late = await get(reach(url));
      expect(late.status).toBe(403);
      expect(late.body.toString()).not.toContain('short-lived');
      if (s.kind === 'local') expectErrorBody({ status: late.status, body: JSON.parse(late.body.toString()) }, 403);
      expectErrorBody(await call(s.t.app, owner, 'GET', `/api/v2/files/${file.uuid}/url?ttlSeconds=901`), 400);
    });

    it('bulk: 20 files in one request, each with its own result', async () => {
      const parts = Array.from({ length: 20 }, (_, i) => ({ name: `f${i}.txt`, bytes: Buffer.from(`file number ${i}`) }));
      const res = await upload(s.base, owner, '/api/v2/files/bulk', parts);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toHaveLength(20);
      const uuids = new Set<string>();
      for (const [i, r] of res.body.data.entries()) {
        expect(r).toMatchObject({ index: i, name: `f${i}.txt`, status: 201, errors: [], file: { name: `f${i}.txt`, contentType: 'text/plain', sha256: sha256(parts[i]!.bytes) } });
        uuids.add(r.file.uuid);
      }
      expect(uuids.size).toBe(20);
      const last = res.body.data[19].file.uuid;
      expect((await get(reach((await urlOf(owner, last)).url))).body.toString()).toBe('file number 19');
    });

    it('attaches to and detaches from a record file property: the record history shows it; the record lists its files', async () => {
      const obj = await anObject(s.t.app, owner);
      await aProperty(s.t.app, owner, obj.uuid, { name: 'docs', type: 'json', format: 'file' });
      await aProperty(s.t.app, owner, obj.uuid, { name: 'photo', type: 'string', format: 'file', options: [{ value: 'image/*', label: 'Images' }] });
      const record = await data(s.t.app, owner, 'POST', `/api/v2/${obj.name}`, { properties: {} });
      const a = (await upload(s.base, owner, '/api/v2/files', [{ name: 'a.txt', bytes: Buffer.from('A') }])).body.data;
      const b = (await upload(s.base, owner, `/api/v2/files?recordUuid=${record.uuid}&property=docs`, [{ name: 'b.txt', bytes: Buffer.from('B') }])).body.data;
      expect((await call(s.t.app, owner, 'PUT', `/api/v2/files/${a.uuid}/records/${record.uuid}/docs`)).status).toBe(200);
      const png = (await upload(s.base, owner, `/api/v2/files?recordUuid=${record.uuid}&property=photo`, [{ name: 'p.png', bytes: pngBytes() }])).body.data;

      const list = await call(s.t.app, owner, 'POST', `/api/v2/files/records/${record.uuid}/index`, { page: 0 });
      expect(list.body.total).toBe(3);
      expect(list.body.data.map((f: { uuid: string; property: string }) => [f.uuid, f.property])).toEqual([[b.uuid, 'docs'], [a.uuid, 'docs'], [png.uuid, 'photo']]);
      expect((await data(s.t.app, owner, 'GET', `/api/v2/records/${record.uuid}`)).properties).toMatchObject({ docs: [b.uuid, a.uuid], photo: png.uuid });

      // A text file is not an image: refused by its bytes, stored nowhere, no event.
      const before = await uploadedEvents(owner.companyUuid);
      const keysBefore = (await s.keys(`files/${owner.companyUuid}/`)).length;
      const refused = await upload(s.base, owner, `/api/v2/files?recordUuid=${record.uuid}&property=photo`, [{ name: 'fake.png', bytes: Buffer.from('not a picture at all'), type: 'image/png' }]);
      expectErrorBody(refused, 400, 'INVALID_FILE_TYPE');
      expectErrorBody(await call(s.t.app, owner, 'PUT', `/api/v2/files/${a.uuid}/records/${record.uuid}/photo`), 400, 'INVALID_FILE_TYPE');
      expect(await uploadedEvents(owner.companyUuid)).toBe(before);
      expect((await s.keys(`files/${owner.companyUuid}/`)).length).toBe(keysBefore);

      expect((await call(s.t.app, owner, 'DELETE', `/api/v2/files/${b.uuid}/records/${record.uuid}/docs`)).body.data).toBe('detached');
      expectErrorBody(await call(s.t.app, owner, 'DELETE', `/api/v2/files/${b.uuid}/records/${record.uuid}/docs`), 404);
      expect((await data(s.t.app, owner, 'GET', `/api/v2/records/${record.uuid}`)).properties.docs).toEqual([a.uuid]);
      const after = await call(s.t.app, owner, 'POST', `/api/v2/files/records/${record.uuid}/index`, {});
      expect(after.body.data.map((f: { uuid: string }) => f.uuid)).toEqual([a.uuid, png.uuid]);

      const history = (await data(s.t.app, owner, 'GET', `/api/v2/records/${record.uuid}/history`)) as { type: string; changes: Record<string, { before: unknown; after: unknown }> }[];
      expect(history.map((e) => e.type)).toEqual(['RecordUpdated', 'RecordUpdated', 'RecordUpdated', 'RecordUpdated', 'RecordCreated']);
      expect(history[0]!.changes.docs).toEqual({ before: [b.uuid, a.uuid], after: [a.uuid] });
      expect(history[3]!.changes.docs).toEqual({ before: null, after: [b.uuid] });
      expectErrorBody(await call(s.t.app, owner, 'PUT', `/api/v2/files/${a.uuid}/records/${record.uuid}/nope`), 400);
    });

    it('delete keeps the bytes and refuses URLs; restore gives the same URL path; purge (ADMIN, once detached) removes the bytes', async () => {
      const bytes = Buffer.from('keep me');
      const file = (await upload(s.base, owner, '/api/v2/files', [{ name: 'k.txt', bytes }])).body.data;
      const key = `files/${owner.companyUuid}/${file.uuid}`;
      const firstPath = new URL((await urlOf(owner, file.uuid)).url).pathname;
      expectErrorBody(await call(s.t.app, owner, 'DELETE', `/api/v2/files/${file.uuid}/permanent`), 409);
      expect((await call(s.t.app, owner, 'DELETE', `/api/v2/files/${file.uuid}`)).body.data).toBe('deleted');
      expect((await data(s.t.app, owner, 'GET', `/api/v2/files/${file.uuid}`)).deletedAt).toEqual(expect.any(Number));
      expectErrorBody(await call(s.t.app, owner, 'GET', `/api/v2/files/${file.uuid}/url`), 404);
      expect(await s.keys(key)).toEqual([key]);
      const deleted = await call(s.t.app, owner, 'POST', '/api/v2/files/index', { filters: [{ key: 'deleted', operator: 'equals', value: true }] });
      expect(deleted.body.data.map((f: { uuid: string }) => f.uuid)).toContain(file.uuid);

      expect((await call(s.t.app, owner, 'POST', `/api/v2/files/${file.uuid}/restore`)).body.data).toMatchObject({ uuid: file.uuid, deletedAt: null, sha256: sha256(bytes) });
      const again = await urlOf(owner, file.uuid);
      expect(new URL(again.url).pathname).toBe(firstPath);
      expect((await get(reach(again.url))).body.equals(bytes)).toBe(true);

      await call(s.t.app, owner, 'DELETE', `/api/v2/files/${file.uuid}`);
      const user = await joinCompany(s.t.app, owner, { role: 'USER' });
      expectErrorBody(await call(s.t.app, user, 'DELETE', `/api/v2/files/${file.uuid}/permanent`), 403);
      expect((await call(s.t.app, owner, 'DELETE', `/api/v2/files/${file.uuid}/permanent`)).body.data).toBe('purged');
      expect(await s.keys(key)).toEqual([]);
      expectErrorBody(await call(s.t.app, owner, 'GET', `/api/v2/files/${file.uuid}`), 404);
      expectErrorBody(await call(s.t.app, owner, 'POST', `/api/v2/files/${file.uuid}/restore`), 404);
    });

    it("another company's file is 404 on every route and gets no URL", async () => {
      const [a, b] = await twoTenants(s.t.app);
      const obj = await anObject(s.t.app, b);
      await aProperty(s.t.app, b, obj.uuid, { name: 'docs', type: 'json', format: 'file' });
      const theirRecord = await data(s.t.app, b, 'POST', `/api/v2/${obj.name}`, { properties: {} });
      const file = (await upload(s.base, a, '/api/v2/files', [{ name: 'secret.txt', bytes: Buffer.from('a secret') }])).body.data;
      for (const [method, url] of [
        ['GET', `/api/v2/files/${file.uuid}`],
        ['GET', `/api/v2/files/${file.uuid}/url`],
        ['DELETE', `/api/v2/files/${file.uuid}`],
        ['POST', `/api/v2/files/${file.uuid}/restore`],
        ['DELETE', `/api/v2/files/${file.uuid}/permanent`],
        ['PUT', `/api/v2/files/${file.uuid}/records/${theirRecord.uuid}/docs`],
        ['DELETE', `/api/v2/files/${file.uuid}/records/${theirRecord.uuid}/docs`],
      ] as const) {
        expectErrorBody(await call(s.t.app, b, method, url), 404);
      }
      expect((await call(s.t.app, b, 'POST', '/api/v2/files/index', {})).body.total).toBe(0);
      expectErrorBody(await call(s.t.app, a, 'POST', `/api/v2/files/records/${theirRecord.uuid}/index`, {}), 404);
      expectErrorBody(await upload(s.base, a, `/api/v2/files?recordUuid=${theirRecord.uuid}&property=docs`, [{ name: 'x.txt', bytes: Buffer.from('x') }]), 404);
      expect((await data(s.t.app, a, 'GET', `/api/v2/files/${file.uuid}`)).uuid).toBe(file.uuid);
    });

    it('a file over the limit is 413 and leaves nothing; a request over its limit keeps none of its files', async () => {
      const tenant = owner.companyUuid;
      const events = await uploadedEvents(tenant);
      const keys = (await s.keys(`files/${tenant}/`)).length;
      expectErrorBody(await upload(s.base, owner, '/api/v2/files', [{ name: 'big.bin', bytes: pngBytes(256 * 1024 + 1) }]), 413);
      const bulk = await upload(s.base, owner, '/api/v2/files/bulk', [{ name: 'ok.txt', bytes: Buffer.from('fine') }, { name: 'big.bin', bytes: pngBytes(300 * 1024) }, { name: 'ok2.txt', bytes: Buffer.from('fine too') }]);
      expect(bulk.status).toBe(200);
      expect(bulk.body.data.map((r: { status: number }) => r.status)).toEqual([201, 413, 201]);
      expect(await uploadedEvents(tenant)).toBe(events + 2);
      expect((await s.keys(`files/${tenant}/`)).length).toBe(keys + 2);
      // Five files of 250 KiB: each under its limit, together over the request's 1 MiB.
      const tooMuch = await upload(s.base, owner, '/api/v2/files/bulk', Array.from({ length: 5 }, (_, i) => ({ name: `p${i}.png`, bytes: pngBytes(250 * 1024) })));
      expectErrorBody(tooMuch, 413);
      expect(await uploadedEvents(tenant)).toBe(events + 2);
      expect((await s.keys(`files/${tenant}/`)).length).toBe(keys + 2);
      expect(await s.leftovers()).toEqual([]);
    });

    it('an upload killed mid-stream leaves no event and no object', async () => {
      const who = await signUpWithCompany(s.t.app);
      const boundary = 'x-boundary-kill';
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      const { port } = new URL(s.base);
      await new Promise<void>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/v2/files', headers: { ...who.headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + 200 * 1024 + 100) } });
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.write(head);
        req.write(pngBytes(100 * 1024), () => setTimeout(() => req.destroy(), 200));
      });
      await new Promise((r) => setTimeout(r, 500));
      expect(await uploadedEvents(who.companyUuid)).toBe(0);
      expect(await s.keys(`files/${who.companyUuid}/`)).toEqual([]);
      expect(await s.leftovers()).toEqual([]);
    });

    it('a raw upload killed mid-stream leaves no event and no object', async () => {
      const who = await signUpWithCompany(s.t.app);
      const { port } = new URL(s.base);
      await new Promise<void>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/v2/files?name=half.bin', headers: { ...who.headers, 'content-type': 'application/octet-stream', 'content-length': String(200 * 1024) } });
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.write(pngBytes(100 * 1024), () => setTimeout(() => req.destroy(), 200));
      });
      await new Promise((r) => setTimeout(r, 500));
      expect(await uploadedEvents(who.companyUuid)).toBe(0);
      expect(await s.keys(`files/${who.companyUuid}/`)).toEqual([]);
      expect(await s.leftovers()).toEqual([]);
    });
  });
}
