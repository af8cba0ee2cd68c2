import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { cmsExportRoutes } from './cms-export.routes.js';
import { makeCmsExportService } from './cms-export.service.js';
import { makeCmsImportService, type CmsServices } from './cms-import.service.js';

/** CMS export and import (issue 37): routes under /api/v2/cms; writes through the CMS services `buildApp` hands over. */
export async function registerCmsExport(app: FastifyInstance, deps: { config: Config; db: Db; cms: CmsServices }) {
  const exporter = makeCmsExportService({ db: deps.db });
  const importer = makeCmsImportService({ db: deps.db, cms: deps.cms });
  await app.register(cmsExportRoutes({ exporter, importer, importBodyLimit: deps.config.CMS_IMPORT_BODY_LIMIT_BYTES }), { prefix: '/api/v2' });
  return { exporter, importer };
}
