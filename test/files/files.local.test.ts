import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twoTenants } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { data, expectErrorBody } from '../schema/schema-fixtures.js';
import { filesContract, suiteLimits, type FilesUnderTest } from './files.contract.js';
import { get, upload } from './files-fixtures.js';

function walk(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  } catch {
    return [];
  }
}

async function startLocal(): Promise<FilesUnderTest & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'files-http-'));
  const t = await startTestApp({ DATA_DIR: dataDir, REACTORS_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10', ...suiteLimits });
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const objects = join(dataDir, 'files', 'objects');
  return {
    t,
    base,
    kind: 'local',
    dataDir,
    async keys(prefix) {
      return walk(objects).map((f) => relative(objects, f).split('\\').join('/')).filter((k) => k.startsWith(prefix));
    },
    async leftovers() {
      return walk(join(dataDir, 'files', 'tmp'));
    },
    async close() {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

filesContract('local disk', startLocal);

describe('local signed URLs', () => {
  let s: FilesUnderTest & { dataDir: string };
  let t: TestApp;
  beforeAll(async () => {
    s = await startLocal();
    t = s.t;
  });
  afterAll(async () => s?.close());

  it('refuse any change: another file, a later expiry, other headers, another method; the key is made once and kept', async () => {
    const [a, b] = await twoTenants(t.app);
    const mine = (await upload(s.base, a, '/api/v2/files', [{ name: 'mine.txt', bytes: Buffer.from('mine') }])).body.data;
    const theirs = (await upload(s.base, b, '/api/v2/files', [{ name: 'theirs.txt', bytes: Buffer.from('theirs') }])).body.data;
    const { url } = await data(t.app, a, 'GET', `/api/v2/files/${mine.uuid}/url`);
    const local = new URL(url.replace(/^https?:\/\/[^/]+/, s.base));
    expect((await get(local.toString())).body.toString()).toBe('mine');

    const tampered: URL[] = [];
    const other = new URL(local);
    other.pathname = `/api/v2/files/signed/files/${b.companyUuid}/${theirs.uuid}`;
    tampered.push(other);
    const later = new URL(local);
    later.searchParams.set('expires', String(Number(local.searchParams.get('expires')) + 3600));
    tampered.push(later);
    const inline = new URL(local);
    inline.searchParams.set('cd', 'inline');
    tampered.push(inline);
    const html = new URL(local);
    html.searchParams.set('ct', 'text/html');
    tampered.push(html);
    const unsigned = new URL(local);
    unsigned.searchParams.delete('sig');
    tampered.push(unsigned);
    for (const u of tampered) {
      const res = await get(u.toString());
      expect(res.status, u.toString()).toBe(403);
      expect(res.body.toString()).not.toMatch(/mine|theirs/);
      expectErrorBody({ status: res.status, body: JSON.parse(res.body.toString()) }, 403);
    }
    const post = await fetch(local, { method: 'POST' });
    expect(post.status).toBe(405);
    // The key was written once into the data folder, readable by its owner only.
    const keyFile = readdirSync(join(s.dataDir, 'files')).filter((f) => f === 'signing.key');
    expect(keyFile).toEqual(['signing.key']);
  });
});
