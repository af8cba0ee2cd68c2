import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalStorage } from '../../src/files/storage/local.storage.js';
import { createS3Storage } from '../../src/files/storage/s3.storage.js';
import { startTestS3 } from '../support/s3-server.js';
import { startTestApp } from '../support/test-app.js';
import { storageContract } from './storage.contract.js';

const SIGNING_KEY = 'k'.repeat(40);

async function fetchSigned(url: string) {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

storageContract('local disk', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'files-local-'));
  // The app serves the signed route; its storage and this one share the folder and the key.
  const t = await startTestApp({ DATA_DIR: dataDir, FILES_SIGNING_KEY: SIGNING_KEY, REACTORS_ENABLED: 'false' });
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const storage = createLocalStorage({ root: join(dataDir, 'files'), publicBaseUrl: address, signingKey: SIGNING_KEY });
  return {
    storage,
    fetchSigned,
    async leftovers() {
      try {
        return readdirSync(join(dataDir, 'files', 'tmp'));
      } catch {
        return [];
      }
    },
    async close() {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

storageContract('S3 (s3rver on loopback)', async () => {
  const s3 = await startTestS3();
  const storage = createS3Storage({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
  return {
    storage,
    fetchSigned,
    async leftovers() {
      // An aborted multipart upload leaves no parts: S3 lists the bucket's unfinished uploads.
      const { ListMultipartUploadsCommand } = await import('@aws-sdk/client-s3');
      const res = await storage.client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket })).catch(() => ({ Uploads: [] }));
      return (res.Uploads ?? []).map((u) => u.Key ?? '');
    },
    async close() {
      storage.client.destroy();
      await s3.close();
    },
  };
});
