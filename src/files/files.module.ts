import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { RecordsService } from '../records/records.service.js';
import { filesRoutes } from './files.routes.js';
import { makeFilesService } from './files.service.js';
import { publicFilesRoutes } from './public-files.routes.js';
import { signedDownloadRoutes } from './signed-download.routes.js';
import { openStorage } from './storage/open-storage.js';
import { scavengeUploadsEvery } from './upload-scavenge.js';
import { multipartLimits } from './uploads.js';
import { webpageUploadRoutes } from './webpage-uploads.routes.js';

/**
 * Files (issue 17): object storage on a port (STORAGE=local|s3), the routes under /api/v2/files,
 * the signed and public downloads, and the webpage uploads of spec 4.4. The service is the port a
 * public form upload (the forms issue) stores through.
 */
export async function registerFiles(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore; records: RecordsService }) {
  const { config, db, store, records } = deps;
  const storage = await openStorage(config);
  const files = makeFilesService({ db, store, storage, records });
  scavengeUploadsEvery(config.FILES_SCAVENGE_EVERY_MIB * 1048576);
  await app.register(async (scope) => {
    // Multipart only here; a part past the file limit is cut, and the upload inspector refuses it.
    // 1 MiB buffers for the parser and each file part (the default 16 KiB pauses the upload at every socket read).
    await scope.register(multipart, { limits: multipartLimits(config), throwFileSizeLimit: false, fileHwm: 1 << 20, highWaterMark: 1 << 20 });
    await scope.register(filesRoutes({ files, config }), { prefix: '/api/v2/files' });
    await scope.register(webpageUploadRoutes({ files, config, db }), { prefix: '/api/v2/webpages' });
  });
  await app.register(signedDownloadRoutes(storage), { prefix: '/api/v2/files/signed' });
  await app.register(publicFilesRoutes({ files }), { prefix: '/api/v2/files/public' });
  return { files, storage };
}
