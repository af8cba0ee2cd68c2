import { join, resolve } from 'node:path';
import type { Config } from '../../config.js';
import { createLocalStorage, STALE_PART_MS } from './local.storage.js';
import type { ObjectStorage } from './storage.port.js';

/**
 * The composition root's choice of adapter (STORAGE=local|s3). The AWS SDK is loaded only when S3
 * is the store: it is a large module graph a local-disk server need not start with.
 */
export async function openStorage(config: Config): Promise<ObjectStorage> {
  if (config.STORAGE === 's3') {
    const { createS3Storage } = await import('./s3.storage.js');
    return createS3Storage({
      bucket: config.S3_BUCKET!,
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    });
  }
  const local = createLocalStorage({ root: join(resolve(config.DATA_DIR), 'files'), publicBaseUrl: config.APP_URL, signingKey: config.FILES_SIGNING_KEY });
  // Uploads a crash or a kill cut short left their temporary files; no event names them.
  await local.removeStaleParts(STALE_PART_MS, Date.now());
  return local;
}
