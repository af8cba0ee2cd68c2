import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { FilesService } from '../files/files.service.js';
import type { RecordsService } from '../records/records.service.js';
import { makeFormSubmissions } from './form-submissions.service.js';
import { formsRoutes } from './forms.routes.js';
import { makeFormsService } from './forms.service.js';
import { publicFormsRoutes } from './public-forms.routes.js';

/**
 * Forms (issue 18): definitions under /api/v2/forms, the public routes under
 * /api/v2/forms/public (no login). A submission creates records through the records service's
 * commands; a public upload stores through the files service. Both are handed over by the app.
 */
export async function registerForms(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore; records: RecordsService; files: FilesService | null }) {
  const { config, db, store, records, files } = deps;
  const forms = makeFormsService({ db, store });
  const submissions = makeFormSubmissions({ db, store, records });
  await app.register(formsRoutes({ forms }), { prefix: '/api/v2/forms' });
  await app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: config.FORMS_UPLOAD_MAX_BYTES + 1, files: 1, fields: 10, fieldSize: 1024, parts: 11 }, throwFileSizeLimit: false });
    await scope.register(publicFormsRoutes({ db, config, submissions, files }), { prefix: '/api/v2/forms/public' });
  });
  return { forms };
}
