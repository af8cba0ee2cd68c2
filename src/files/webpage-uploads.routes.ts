import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import type { FileStored } from '../../aggregates/file/file.events.js';
import { commandContext } from '../auth/actor.js';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { envelope, ok } from '../http/envelope.js';
import { MAX_PATH_PARAM_LENGTH } from '../http/path-params.js';
import { pageByUuid } from '../../read-models/pages.queries.js';
import type { FilesService } from './files.service.js';
import { noFile, refuseDeclaredLength, sendUploadFailure, storePart } from './uploads.js';

/**
 * The name segment of a public URL: the stored name (up to 200 characters) cut to what the router
 * takes in a path parameter, whole code points only, its extension kept. The file is found by its
 * uuid; the name is for people and caches (the download keeps the whole name).
 */
export function urlNameOf(name: string): string {
  if (name.length <= MAX_PATH_PARAM_LENGTH) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  let head = '';
  for (const c of name.slice(0, name.length - ext.length)) {
    if (head.length + c.length + ext.length > MAX_PATH_PARAM_LENGTH) break;
    head += c;
  }
  return head + ext;
}

/** The public URL of a public file: served by public-files.routes.ts. */
export const publicUrlOf = (config: Config, tenant: string, file: Pick<FileStored, 'fileUuid' | 'name'>) =>
  `${config.APP_URL.replace(/\/+$/, '')}/api/v2/files/public/${tenant}/${file.fileUuid}/${encodeURIComponent(urlNameOf(file.name))}`;

/**
 * Spec 4.4's uploads: `POST /webpages/{uuid}/uploadFile` (into the page's attachments folder) and
 * `POST /webpages/uploadFile`; both answer the public URL. `{uuid}` is the page's own uuid (a page
 * of the caller's company, read from the pages read model; the webpages slice owns the pages).
 */
export const webpageUploadRoutes = (deps: { files: FilesService; config: Config; db: Db }): FastifyPluginAsyncZod => async (app) => {
  const { files, config, db } = deps;
  const tags = ['webpages'];

  async function upload(request: FastifyRequest, reply: FastifyReply, pageUuid: string | null) {
    const ctx = commandContext(request);
    const early = refuseDeclaredLength(request, config);
    if (early) return sendUploadFailure(request, reply, early);
    if (pageUuid && !(await pageByUuid(db, ctx.tenant, pageUuid))) throw notFound('Webpage', pageUuid);
    const part = await request.file();
    if (!part) throw noFile();
    let stored: FileStored;
    try {
      stored = await storePart(files, ctx.tenant, part, { accepted: [], visibility: 'public', pageUuid }, { left: config.FILES_MAX_REQUEST_BYTES, maxFile: config.FILES_MAX_FILE_BYTES }, true);
    } catch (err) {
      return sendUploadFailure(request, reply, err);
    }
    await files.commit(ctx, stored);
    reply.code(201);
    return ok(publicUrlOf(config, ctx.tenant, stored), 'created');
  }

  app.post('/:uuid/uploadFile', { config: { auth: {}, upload: { files: 'one' } }, schema: { tags, description: "Uploads a file into the page's attachments folder with public access; answers its public URL.", params: z.object({ uuid: z.uuid() }), response: { 201: envelope(z.string()) } } }, async (request, reply) =>
    upload(request, reply, request.params.uuid.toLowerCase()),
  );

  app.post('/uploadFile', { config: { auth: {}, upload: { files: 'one' } }, schema: { tags, description: 'Uploads a file with public access; answers its public URL.', response: { 201: envelope(z.string()) } } }, async (request, reply) =>
    upload(request, reply, null),
  );
};
