import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalid } from '../../aggregates/kernel/errors.js';
import { recordIndexRequestSchema } from '../../aggregates/record-filter/filter.schema.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, okJson, pageJson, sendJson } from '../http/envelope.js';
import { errorBodySchema } from '../http/error-body.js';
import { recordsJson } from './record-json.js';
import { recordSchema } from './record-view.js';
import type { RecordHistory } from './records.history.js';
import { asOfReplySchema, listAsOfField, type makeListAsOf } from './list-as-of.js';
import type { RecordReads } from './records.reads.js';
import {
  deleteQuerySchema,
  fieldsSet,
  ifMatchRevision,
  objectNameParam,
  objectParams,
  objectUuidParams,
  parseAsOf,
  propertiesMap,
  readQuerySchema,
  recordBodySchema,
  uuidParams,
  writeQuerySchema,
} from './records.schemas.js';
import type { RecordsService } from './records.service.js';
import type { SavedFilters } from './saved-filters.service.js';

const tags = ['records'];

/**
 * Responses that carry records are built by `toRecordView` (typed by `recordSchema`, field by
 * field), so they are written as they are: checking every record of a page against the schema
 * again cost a tenth of the server's time on reads. The schemas still document the routes. The
 * reads (a record, a page) are written as JSON text from their rows (record-json.ts, ADR 0011).
 */
const asBuilt = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };
const auth = { auth: {} } as const;
/** Object-scoped paths match any name: a wrong method there is a 404, not a 405 (see method-not-allowed.ts). */
const dynamic = { auth: {}, dynamicPath: true } as const;
const errors = Object.fromEntries([400, 401, 403, 404, 409].map((c) => [c, errorBodySchema]));
const dataNull = z.object({ message: z.string(), data: z.null() });
const dataString = z.object({ message: z.string(), data: z.string() });
const listRequestSchema = recordIndexRequestSchema.extend({ asOf: listAsOfField }).meta({ id: 'RecordListRequest' });
const indexBody = listRequestSchema.nullable().optional().transform((v) => v ?? listRequestSchema.parse({}));
const listAsOfEnvelope = listEnvelope(recordSchema).extend({ asOf: asOfReplySchema.optional().describe('Only when the request had asOf: the log position the page reflects') });

export interface RecordRoutesDeps {
  records: RecordsService;
  reads: RecordReads;
  history: RecordHistory;
  savedFilters: SavedFilters;
  pageAsOf: ReturnType<typeof makeListAsOf>;
}

/** The precondition of an update: body `expectedRevision` or `If-Match` (they must agree when both are sent). */
function precondition(request: FastifyRequest, body: { expectedRevision?: number }): number | undefined {
  const header = ifMatchRevision(request.headers['if-match'] as string | undefined);
  if (header !== undefined && body.expectedRevision !== undefined && header !== body.expectedRevision) {
    throw invalid('body.expectedRevision', `If-Match ${header} and expectedRevision ${body.expectedRevision} disagree`, 'Send one precondition, or the same revision in both');
  }
  return body.expectedRevision ?? header;
}

const etag = (reply: FastifyReply, revision: number) => reply.header('etag', `"${revision}"`);

/**
 * Records under /api/v2: the object-scoped routes `/{objectName}/...` and the spec's
 * `/records/{uuid}` routes (4.1).
 */
export const recordsRoutes = (deps: RecordRoutesDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const { records, reads, history, savedFilters, pageAsOf } = deps;

    async function read(request: FastifyRequest, reply: FastifyReply, uuid: string, objectName: string | undefined, query: z.infer<typeof readQuerySchema>) {
      const tenant = companyActor(request).tenant;
      const opts = { format: query.recordReturnFormat, parse: query.parse, fields: fieldsSet(query.fields) };
      if (query.asOf !== undefined) return ok(await history.asOf(tenant, uuid, objectName, parseAsOf(query.asOf), opts));
      const found = await reads.one(tenant, uuid, objectName, opts);
      etag(reply, found.row.revision);
      return sendJson(reply, okJson(recordsJson(found)[0]!));
    }

    async function write(request: FastifyRequest, reply: FastifyReply, uuid: string, objectName: string | undefined, body: z.infer<typeof recordBodySchema>, query: z.infer<typeof writeQuerySchema>) {
      const done = await records.update(commandContext(request), uuid, propertiesMap(body.properties), {
        objectName,
        ignoreErrors: query.ignoreErrors,
        expectedRevision: precondition(request, body),
      });
      etag(reply, done.revision);
      return { message: done.changed ? 'updated' : 'unchanged', data: null };
    }

    // Object-scoped routes.
    app.post(
      `/${objectNameParam}/`,
      { config: dynamic, ...asBuilt, schema: { tags, description: 'Creates a record of the object (spec 2.2 body; properties as a map or the LEGACY array).', params: objectParams, querystring: writeQuerySchema, body: recordBodySchema, response: { 201: envelope(recordSchema), ...errors } } },
      async (request, reply) => {
        const ctx = commandContext(request);
        const done = await records.create(ctx, request.params.objectName, { uuid: request.body.uuid, properties: propertiesMap(request.body.properties), extends: request.body.extends }, { ignoreErrors: request.query.ignoreErrors });
        // A new record has no relations nor teams yet: answer from what was written, no read back.
        const view = await reads.created(done, ctx, { format: request.query.recordReturnFormat, parse: request.query.parse });
        etag(reply, view.revision);
        reply.code(201);
        return ok(view, 'created');
      },
    );

    app.post(
      `/${objectNameParam}/index`,
      {
        config: dynamic,
        ...asBuilt,
        schema: {
          tags,
          description: 'A page of the object\'s records: filters (AND), groups (OR of ANDs), a saved filter, sort, show, limit (default 25, at most 100), page (from 0), free-text query, archived; asOf (our extension): the page as it was at a log position or time. See docs/records.md.',
          params: objectParams,
          querystring: z.object({ recordReturnFormat: readQuerySchema.shape.recordReturnFormat, parse: readQuerySchema.shape.parse }).strict(),
          body: indexBody,
          response: { 200: listAsOfEnvelope, ...errors },
        },
      },
      async (request, reply) => {
        const tenant = companyActor(request).tenant;
        const { asOf, ...body } = request.body;
        const object = await records.objectNamed(tenant, request.params.objectName);
        const saved = body.savedFilter ? await savedFilters.compiledFor(tenant, body.savedFilter, object) : undefined;
        const opts = { format: request.query.recordReturnFormat, parse: request.query.parse, savedFilter: saved };
        if (asOf !== undefined) {
          const then = await pageAsOf(tenant, object, body, asOf, opts);
          // The page's JSON with the position it reflects after its counters.
          return sendJson(reply, `${pageJson(recordsJson(then), then.total, then.page, then.perPage).slice(0, -1)},"asOf":${JSON.stringify(then.asOf)}}`);
        }
        const result = await reads.page(tenant, object, body, opts);
        return sendJson(reply, pageJson(recordsJson(result), result.total, result.page, result.perPage));
      },
    );

    app.get(`/${objectNameParam}/:uuid`, { config: dynamic, ...asBuilt, schema: { tags, params: objectUuidParams, querystring: readQuerySchema, response: { 200: envelope(recordSchema), ...errors } } }, async (request, reply) =>
      read(request, reply, request.params.uuid, request.params.objectName, request.query),
    );

    app.put(
      `/${objectNameParam}/:uuid`,
      { config: dynamic, schema: { tags, description: 'Sets the sent properties (null clears one); the others keep their values. If-Match or expectedRevision make it conditional (409 on mismatch).', params: objectUuidParams, querystring: writeQuerySchema, body: recordBodySchema, response: { 200: dataNull, ...errors } } },
      async (request, reply) => write(request, reply, request.params.uuid, request.params.objectName, request.body, request.query),
    );

    app.delete(`/${objectNameParam}/:uuid`, { config: dynamic, schema: { tags, description: 'Archives (soft-deletes) the record.', params: objectUuidParams, querystring: deleteQuerySchema, response: { 200: dataString, ...errors } } }, async (request) => {
      await records.archive(commandContext(request), request.params.uuid, request.query.mode, request.params.objectName);
      return ok(`Record ${request.params.uuid} archived`, 'archived');
    });

    app.post(`/${objectNameParam}/:uuid/restore`, { config: dynamic, schema: { tags, params: objectUuidParams, response: { 200: dataString, ...errors } } }, async (request) => {
      await records.restore(commandContext(request), request.params.uuid, request.params.objectName);
      return ok(`Record ${request.params.uuid} restored`, 'restored');
    });

    // The spec's /records/{uuid} routes (4.1).
    app.get('/records/:uuid', { config: auth, ...asBuilt, schema: { tags, description: 'A record (200 also when archived: deletedAt is set). asOf: as it was at a revision or time.', params: uuidParams, querystring: readQuerySchema, response: { 200: envelope(recordSchema), ...errors } } }, async (request, reply) =>
      read(request, reply, request.params.uuid, request.query.object, request.query),
    );

    app.put('/records/:uuid', { config: auth, schema: { tags, params: uuidParams, querystring: writeQuerySchema, body: recordBodySchema, response: { 200: dataNull, ...errors } } }, async (request, reply) =>
      write(request, reply, request.params.uuid, request.query.object, request.body, request.query),
    );

    app.delete('/records/:uuid', { config: auth, schema: { tags, params: uuidParams, querystring: deleteQuerySchema, response: { 200: dataString, ...errors } } }, async (request) => {
      await records.archive(commandContext(request), request.params.uuid, request.query.mode);
      return ok(`Record ${request.params.uuid} archived`, 'archived');
    });

    app.post('/records/:uuid/restore', { config: auth, schema: { tags, params: uuidParams, response: { 200: dataString, ...errors } } }, async (request) => {
      await records.restore(commandContext(request), request.params.uuid);
      return ok(`Record ${request.params.uuid} restored`, 'restored');
    });

    const extensionParams = z.object({ uuid: z.uuid(), objectName: z.string().max(63) });
    app.put('/records/:uuid/objects/:objectName', { config: auth, schema: { tags, description: 'Makes the record also a record of another object (spec 1.4).', params: extensionParams, response: { 200: dataNull, ...errors } } }, async (request) => {
      await records.extend(commandContext(request), request.params.uuid, request.params.objectName);
      return { message: 'extended', data: null };
    });

    app.delete('/records/:uuid/objects/:objectName', { config: auth, schema: { tags, params: extensionParams, response: { 200: dataNull, ...errors } } }, async (request) => {
      await records.removeExtension(commandContext(request), request.params.uuid, request.params.objectName);
      return { message: 'removed', data: null };
    });
  };
