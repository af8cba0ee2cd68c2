import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startTestS3 } from '../support/s3-server.js';
import { startTestApp } from '../support/test-app.js';
import { filesContract, suiteLimits } from './files.contract.js';

filesContract('S3 (s3rver on loopback)', async () => {
  const s3 = await startTestS3();
  const t = await startTestApp({ ...s3.env, REACTORS_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10', ...suiteLimits });
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  return {
    t,
    base,
    kind: 's3',
    async keys(prefix) {
      const res = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
      return (res.Contents ?? []).map((o) => o.Key!);
    },
    async leftovers() {
      const res = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket })).catch(() => ({ Uploads: [] }));
      return (res.Uploads ?? []).map((u) => u.Key ?? '');
    },
    async close() {
      client.destroy();
      await t.close();
      await s3.close();
    },
  };
});
