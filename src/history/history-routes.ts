import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limitQueryField, pageQueryField } from '../../aggregates/kernel/paging.js';
import { listEnvelope, ok, page } from '../http/envelope.js';
import { parseAsOf } from '../records/records.schemas.js';
import { resourceHistoryEntrySchema, type ResourceHistory, type ResourceHistoryAdapter } from './resource-history.js';

/** The resources with history and asOf (docs/events.md, "History and asOf of every resource"). */
export type HistoryKind = 'forms' | 'views' | 'saved-filters' | 'webhooks' | 'files' | 'app-installations' | 'company-settings';

export interface ResourceHistories {
  history: ResourceHistory;
  adapters: Record<HistoryKind, ResourceHistoryAdapter>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The shared history and asOf, and each resource's adapter (src/history/history.module.ts). */
    resourceHistories: ResourceHistories;
  }
}

/** `GET .../history`: the same query parameters as `GET records/{uuid}/history`. */
export const historyQuerySchema = z.object({ page: pageQueryField, limit: limitQueryField }).strict();

export const asOfField = z.string().max(40).optional().describe('A revision of the resource (see its history), or an ISO 8601 time: the resource as it was then');

/** How a slice reads its resource: the uuid's path parameter, and what else the adapter needs (e.g. the webhook owner). */
export interface HistoryOptions {
  /** The path parameter that holds the resource's uuid: `uuid` unless said. */
  param?: string;
  scope?: (request: FastifyRequest) => Promise<unknown>;
}

const uuidOf = (request: FastifyRequest, o: HistoryOptions) => String((request.params as Record<string, string>)[o.param ?? 'uuid']).toLowerCase();
const scopeOf = (request: FastifyRequest, o: HistoryOptions) => (o.scope ? o.scope(request) : Promise.resolve(undefined));

/**
 * Registers `GET <url>` (default `/:uuid/history`): the resource's events, newest first, paginated
 * as records' history is. `config` is the resource's GET's (same roles and scopes).
 */
export function historyRoute(
  app: FastifyInstance,
  kind: HistoryKind,
  o: HistoryOptions & { config: RouteShorthandOptions['config']; tags: string[]; url?: string; params?: z.ZodObject },
) {
  const params = o.params ?? z.object({ [o.param ?? 'uuid']: z.uuid() });
  app.withTypeProvider<ZodTypeProvider>().get(
    o.url ?? `/:${o.param ?? 'uuid'}/history`,
    {
      config: o.config,
      schema: {
        tags: o.tags,
        description: 'Its events, newest first: what each changed in the GET answer (before and after), who, when, requestId; the revision is what `asOf` takes.',
        params,
        querystring: historyQuerySchema,
        response: { 200: listEnvelope(resourceHistoryEntrySchema) },
      },
    },
    async (request) => {
      const { history, adapters } = app.resourceHistories;
      const { page: n, limit } = request.query;
      const { total, entries } = await history.page(adapters[kind], request, uuidOf(request, o), await scopeOf(request, o), n, limit);
      return page(entries, total, n, limit);
    },
  );
}

type Schema = { querystring?: z.ZodObject; description?: string };

/**
 * The GET route's options with `asOf`: the query parameter is added to its querystring, and a
 * request that sends it is answered from the resource's stream (in the same envelope and response
 * schema) before the route's handler runs.
 */
export function withAsOf<O extends RouteShorthandOptions>(app: FastifyInstance, kind: HistoryKind, options: O, o: HistoryOptions = {}): O {
  const schema = (options.schema ?? {}) as Schema;
  const querystring = schema.querystring ? schema.querystring.extend({ asOf: asOfField }) : z.object({ asOf: asOfField }).strict();
  const description = [schema.description, '`asOf` (a revision or an ISO 8601 time): as it was then, deletedAt set if it was deleted; history: GET .../history.'].filter(Boolean).join(' ');
  const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = (request.query as { asOf?: string }).asOf;
    if (raw === undefined) return;
    const { history, adapters } = app.resourceHistories;
    const view = await history.asOf(adapters[kind], request, uuidOf(request, o), await scopeOf(request, o), parseAsOf(raw));
    return reply.send(ok(view));
  };
  const before = options.preHandler;
  return { ...options, schema: { ...options.schema, description, querystring }, preHandler: before ? [...[before].flat(), preHandler] : preHandler } as O;
}
