import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, type ErrorDetail } from '../../aggregates/kernel/errors.js';
import type { FileStored } from '../../aggregates/file/file.events.js';
import { commandContext, companyActor } from '../auth/actor.js';
import type { Config } from '../config.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { statusOf } from '../http/error-body.js';
import { pageOffset, paginationBody } from '../http/pagination.js';
import { pathText } from '../http/path-params.js';
import { sanitiseFileName } from './file-names.js';
import { fileSchema, recordFileSchema, toFile, toRecordFile, uploadOneQuerySchema, uploadQuerySchema, uploadResultSchema, urlSchema } from './files.schemas.js';
import type { FilesService } from './files.service.js';
import { TooLargeError } from './inspect-upload.js';
import { noFile, refuseDeclaredFileLength, refuseDeclaredLength, sendUploadFailure, storePart, uploadFailure } from './uploads.js';
import { historyRoute, withAsOf } from '../history/history-routes.js';

const tags = ['files'];
const params = z.object({ uuid: z.uuid() });
const attachParams = z.object({ uuid: z.uuid(), recordUuid: z.uuid(), property: pathText() });
const member = { auth: {} } as const;
const admin = { auth: { roles: ['ADMIN' as const] } };

/** The media type of a raw upload's body. */
const RAW = /^application\/octet-stream\s*(;|$)/i;

type UploadResult = z.infer<typeof uploadResultSchema>;

/** Files (spec 1.14) under /api/v2/files, in the spec's habits. Uploads are multipart/form-data (or, for one file, a raw body), streamed to storage. */
export const filesRoutes = (deps: { files: FilesService; config: Config }): FastifyPluginAsyncZod =>
  async (app) => {
    const { files, config } = deps;
    const budget = () => ({ left: config.FILES_MAX_REQUEST_BYTES, maxFile: config.FILES_MAX_FILE_BYTES });

    /** One file: the first file part of a multipart body, or a raw body (application/octet-stream, the name in ?name=). */
    await app.register(async (scope) => {
      const one = scope.withTypeProvider<ZodTypeProvider>();
      // A raw body is left unread here (body undefined): the route reads the request stream itself,
      // once, through the inspector, never buffered. (Not the stream as the body: hooks look into bodies.)
      one.addContentTypeParser('application/octet-stream', (_request, _payload, done) => done(null, undefined));
      one.post(
        '/',
        {
          config: { ...member, upload: { files: 'one', raw: true } },
          schema: {
            tags,
            description:
              'Uploads one file: multipart/form-data (the first file part), or the bytes themselves as the body with Content-Type application/octet-stream and the file name in ?name= (no multipart parsing: the faster way for one large file). With recordUuid and property it is attached to that record property, whose options list the accepted types.',
            querystring: uploadOneQuerySchema,
            response: { 201: envelope(fileSchema) },
          },
        },
        async (request, reply) => {
          const ctx = commandContext(request);
          // Any other body (text, JSON) was refused with 415 before (src/http/upload-body.ts).
          const raw = !request.isMultipart() && RAW.test(request.headers['content-type'] ?? '');
          const early = raw ? refuseDeclaredFileLength(request, config) : refuseDeclaredLength(request, config);
          if (early) return sendUploadFailure(request, reply, early);
          const { recordUuid, property, name } = request.query;
          const target = recordUuid && property ? await files.target(ctx.tenant, recordUuid, property) : null;
          const plan = { accepted: target?.accepted ?? [], visibility: 'private' as const, pageUuid: null };
          let stored: FileStored;
          if (raw) {
            try {
              stored = await files.store(ctx.tenant, request.raw, name, { ...plan, maxBytes: config.FILES_MAX_FILE_BYTES, scopeOfLimit: 'file', writeOnWorker: true });
            } catch (err) {
              return sendUploadFailure(request, reply, err, property);
            }
          } else {
            const part = await request.file();
            if (!part) throw noFile();
            try {
              stored = await storePart(files, ctx.tenant, part, plan, budget());
            } catch (err) {
              return sendUploadFailure(request, reply, err, property);
            }
          }
          let row = await files.commit(ctx, stored);
          if (target) row = await files.attach(ctx, row.file_uuid, target);
          reply.code(201);
          return ok(await app.audit.one(row.tenant, row, toFile), 'created');
        },
      );
    });

    app.post(
      '/bulk',
      {
        config: { ...member, upload: { files: 'many' } },
        schema: {
          tags,
          description: 'Uploads every file part of the request; each file has its own result (201, or the 400 / 413 it alone would have had). Past the request size limit the whole request is 413 and nothing is kept.',
          querystring: uploadQuerySchema,
          response: { 200: envelope(z.array(uploadResultSchema)) },
        },
      },
      async (request, reply) => {
        const ctx = commandContext(request);
        const early = refuseDeclaredLength(request, config);
        if (early) return sendUploadFailure(request, reply, early);
        const { recordUuid, property } = request.query;
        const target = recordUuid && property ? await files.target(ctx.tenant, recordUuid, property) : null;
        const left = budget();
        const results: (UploadResult & { stored?: FileStored })[] = [];
        try {
          for await (const part of request.files()) {
            const index = results.length;
            try {
              const stored = await storePart(files, ctx.tenant, part, { accepted: target?.accepted ?? [], visibility: 'private', pageUuid: null }, left);
              results.push({ index, name: stored.name, status: 201, file: null, errors: [], stored });
            } catch (err) {
              if (err instanceof TooLargeError && err.scope === 'request') throw err;
              const failure = uploadFailure(err, property);
              if (!failure) throw err;
              results.push({ index, name: sanitiseFileName(part.filename), status: failure.status, file: null, errors: failure.details.map(({ message, type, correctionSuggestion }) => ({ message, type, correctionSuggestion })) });
            }
          }
        } catch (err) {
          // Nothing of a refused request is kept: no event was written, and the bytes go.
          await Promise.all(results.flatMap((r) => (r.stored ? [files.discard(r.stored)] : [])));
          return sendUploadFailure(request, reply, err, property);
        }
        if (results.length === 0) throw noFile();
        for (const [i, r] of results.entries()) {
          if (!r.stored) continue;
          try {
            let row = await files.commit(ctx, r.stored);
            if (target) row = await files.attach(ctx, row.file_uuid, target);
            r.file = await app.audit.one(row.tenant, row, toFile);
          } catch (err) {
            if (!(err instanceof DomainError)) {
              await Promise.all(results.slice(i + 1).flatMap((x) => (x.stored ? [files.discard(x.stored)] : [])));
              throw err;
            }
            r.status = statusOf[err.code];
            r.errors = err.details.map(({ message, type, correctionSuggestion }: ErrorDetail) => ({ message, type, correctionSuggestion }));
          }
        }
        return ok(results.map(({ stored: _, ...r }) => r));
      },
    );

    app.post(
      '/index',
      { config: member, schema: { tags, description: "The company's files, oldest first; filter {key: 'deleted', operator: 'equals', value: true} lists the deleted ones.", body: paginationBody, response: { 200: listEnvelope(fileSchema) } } },
      async (request) => {
        const { limit, page: n, filters } = request.body;
        const deleted = filters.some((f) => f.key === 'deleted' && f.value === true);
        const { rows, total } = await files.list(companyActor(request).tenant, { deleted, limit, offset: pageOffset(n, limit) });
        return page(await app.audit.all(companyActor(request).tenant, rows, toFile), total, n, limit);
      },
    );

    app.post(
      '/records/:recordUuid/index',
      { config: member, schema: { tags, description: "The live files attached to a record's file properties, in the order they were attached.", params: z.object({ recordUuid: z.uuid() }), body: paginationBody, response: { 200: listEnvelope(recordFileSchema) } } },
      async (request) => {
        const { limit, page: n } = request.body;
        const { rows, total } = await files.ofRecord(companyActor(request).tenant, request.params.recordUuid, { limit, offset: pageOffset(n, limit) });
        return page(await app.audit.all(companyActor(request).tenant, rows, toRecordFile), total, n, limit);
      },
    );

    historyRoute(app, 'files', { config: member, tags });
    app.get('/:uuid', withAsOf(app, 'files', { config: member, schema: { tags, description: 'The file\'s metadata (also when deleted: deletedAt is set).', params, response: { 200: envelope(fileSchema) } } }), async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await files.found(companyActor(request).tenant, request.params.uuid, { deleted: 'either' }), toFile)),
    );

    app.get(
      '/:uuid/url',
      {
        config: member,
        schema: {
          tags,
          description: `A pre-signed download URL of a live file, valid for ttlSeconds (default FILES_URL_TTL_SECONDS, at most 900).`,
          params,
          querystring: z.object({ ttlSeconds: z.coerce.number().int().min(1).max(900).optional() }).strict(),
          response: { 200: envelope(urlSchema) },
        },
      },
      async (request) => ok(await files.url(companyActor(request).tenant, request.params.uuid, request.query.ttlSeconds ?? config.FILES_URL_TTL_SECONDS, Date.now())),
    );

    app.delete('/:uuid', { config: member, schema: { tags, description: 'Soft-deletes the file: its bytes stay until it is purged.', params, response: { 200: envelope(z.string()) } } }, async (request) => {
      await files.remove(commandContext(request), request.params.uuid);
      return ok('deleted', 'deleted');
    });

    app.post('/:uuid/restore', { config: member, schema: { tags, description: 'Restores a deleted file, at the same storage key.', params, response: { 200: envelope(fileSchema) } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await files.restore(commandContext(request), request.params.uuid), toFile), 'restored'),
    );

    app.delete('/:uuid/permanent', { config: admin, schema: { tags, description: 'Purges a deleted file that no record holds: its bytes are removed for good (ADMIN).', params, response: { 200: envelope(z.string()) } } }, async (request) => {
      await files.purge(commandContext(request), request.params.uuid);
      return ok('purged', 'purged');
    });

    app.put('/:uuid/records/:recordUuid/:property', { config: member, schema: { tags, description: 'Attaches the file to a file property of the record (the record gets a RecordUpdated).', params: attachParams, response: { 200: envelope(fileSchema) } } }, async (request) => {
      const ctx = commandContext(request);
      const { uuid, recordUuid, property } = request.params;
      return ok(await app.audit.one(ctx.tenant, await files.attach(ctx, uuid, await files.target(ctx.tenant, recordUuid, property)), toFile), 'attached');
    });

    app.delete('/:uuid/records/:recordUuid/:property', { config: member, schema: { tags, description: 'Takes the file out of the record property (the record gets a RecordUpdated).', params: attachParams, response: { 200: envelope(z.string()) } } }, async (request) => {
      const ctx = commandContext(request);
      const { uuid, recordUuid, property } = request.params;
      await files.detach(ctx, uuid, await files.target(ctx.tenant, recordUuid, property));
      return ok('detached', 'detached');
    });
  };
