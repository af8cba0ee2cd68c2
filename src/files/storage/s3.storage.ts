import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { assertKey, type ObjectStorage } from './storage.port.js';

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  /** Both or neither: without them the SDK's own chain (environment, profile, instance role) applies. */
  accessKeyId?: string;
  secretAccessKey?: string;
}

const missing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Any S3-compatible store. A put is a multipart upload of 8 MiB parts, at most 2 in flight (so a
 * large file costs ~16 MiB of memory, never its size); when the body fails, the upload is aborted
 * and no object appears. Signed URLs are S3's own (X-Amz-Expires).
 */
export function createS3Storage(o: S3Options): ObjectStorage & { client: S3Client } {
  const config: S3ClientConfig = { region: o.region, forcePathStyle: o.forcePathStyle };
  if (o.endpoint) config.endpoint = o.endpoint;
  if (o.accessKeyId && o.secretAccessKey) config.credentials = { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey };
  const client = new S3Client(config);
  const Bucket = o.bucket;

  return {
    kind: 's3',
    client,

    async put(key, body, contentType) {
      assertKey(key);
      const upload = new Upload({ client, params: { Bucket, Key: key, Body: body, ContentType: contentType }, partSize: 8 * 1024 * 1024, queueSize: 2, leavePartsOnError: false });
      // A failing body does not always reach the SDK as an error: abort on it ourselves.
      const onError = () => void upload.abort().catch(() => undefined);
      body.once('error', onError);
      try {
        await upload.done();
      } catch (err) {
        await client.send(new DeleteObjectCommand({ Bucket, Key: key })).catch(() => undefined);
        throw err;
      } finally {
        body.off('error', onError);
      }
      if (body.errored) {
        await client.send(new DeleteObjectCommand({ Bucket, Key: key })).catch(() => undefined);
        throw body.errored;
      }
    },

    async get(key) {
      assertKey(key);
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        return res.Body as Readable;
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },

    async exists(key) {
      assertKey(key);
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return true;
      } catch (err) {
        if (missing(err)) return false;
        throw err;
      }
    },

    async delete(key) {
      assertKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async signedGetUrl(key, headers, t) {
      assertKey(key);
      const command = new GetObjectCommand({ Bucket, Key: key, ResponseContentType: headers.contentType, ResponseContentDisposition: headers.disposition });
      return getSignedUrl(client, command, { expiresIn: t.ttlSeconds, signingDate: new Date(t.now) });
    },
  };
}
