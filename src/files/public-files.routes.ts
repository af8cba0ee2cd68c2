import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import { MAX_PATH_PARAM_LENGTH } from '../http/path-params.js';
import { downloadHeaders } from './file-names.js';
import type { FilesService } from './files.service.js';

/**
 * Public files (webpage attachments): `GET /api/v2/files/public/{companyUuid}/{fileUuid}/{name}`,
 * no login. Only files uploaded as public, not deleted; anything else is the same 404. The name
 * segment is for people and caches; the file is found by company and uuid.
 */
export const publicFilesRoutes = (deps: { files: FilesService }): FastifyPluginAsyncZod => async (app) => {
  app.get(
    '/:companyUuid/:fileUuid/:name',
    { config: { auth: 'public' }, schema: { tags: ['files'], description: 'A public file (a webpage attachment).', params: z.object({ companyUuid: z.uuid(), fileUuid: z.uuid(), name: z.string().max(MAX_PATH_PARAM_LENGTH) }) } },
    async (request, reply) => {
      const { companyUuid, fileUuid } = request.params;
      const found = await deps.files.publicBytes(companyUuid.toLowerCase(), fileUuid.toLowerCase());
      if (!found) throw notFound('File', fileUuid);
      const h = downloadHeaders(found.row.name, found.row.content_type);
      return reply
        .header('content-type', h.contentType)
        .header('content-disposition', h.disposition)
        .header('content-length', String(found.row.size))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'public, max-age=300')
        .send(found.body);
    },
  );
};
