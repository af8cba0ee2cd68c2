import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { errorResponses } from '../schema/http-common.js';
import { cmsExportSchema, importBodySchema, importQuerySchema, importResultSchema } from './cms-export.schemas.js';
import type { CmsExportService } from './cms-export.service.js';
import type { CmsImportService } from './cms-import.service.js';

const tags = ['cms'];
// The whole site, drafts, scripts and all, goes out and comes in: the CMS writers' affair.
const write = { auth: { scopes: ['webpages:write' as const] } };

/** CMS export and import (issue 37): `GET /cms/export`, `POST /cms/import?dryRun=`. */
export const cmsExportRoutes = (deps: { exporter: CmsExportService; importer: CmsImportService; importBodyLimit: number }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/cms/export',
      {
        config: write,
        schema: {
          tags,
          description: "The selected company's site as one versioned document (formatVersion 1): environments, company module definitions, pages with their current documents, live menus, translation links. Templates, personal modules, page passwords and record values are not in it.",
          response: { 200: envelope(cmsExportSchema), ...errorResponses(409) },
        },
      },
      async (request) => ok(await deps.exporter.export(companyActor(request).tenant, Date.now())),
    );

    app.post(
      '/cms/import',
      {
        config: write,
        bodyLimit: deps.importBodyLimit,
        schema: {
          tags,
          description:
            'Imports a document of GET /cms/export into the selected company: new uuids, menu and translation references remapped, pages bound to records of this company (`records`), module fields checked against its definitions. Everything is checked before the first write: any problem is one 400 listing them, and nothing is written. dryRun (default true) answers the list of changes only.',
          querystring: importQuerySchema,
          body: importBodySchema,
          response: { 200: envelope(importResultSchema), 201: envelope(importResultSchema) },
        },
      },
      async (request, reply) => {
        const { dryRun } = request.query;
        const result = await deps.importer.import(commandContext(request), request.body, dryRun);
        if (!dryRun) reply.code(201);
        return ok(result, dryRun ? 'dry run: nothing written' : 'imported');
      },
    );
  };
