import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalid } from '../../aggregates/kernel/errors.js';
import { epochMillis } from '../../aggregates/record-filter/values.js';
import { normaliseOperator } from '../../aggregates/record-filter/filter.schema.js';
import { eventLog, type EventLogQuery } from '../../read-models/event-log.queries.js';
import { companyActor } from '../auth/actor.js';
import { loggedEvent, loggedEventSchema } from '../events/logged-event.js';
import type { Db } from '../db/db.js';
import { listEnvelope, page } from '../http/envelope.js';
import { errorBodySchema } from '../http/error-body.js';
import { paginationRequestSchema, pageOffset } from '../http/pagination.js';
import { limitQueryField, pageQueryField } from '../../aggregates/kernel/paging.js';
import { historyEntrySchema, type RecordHistory } from './records.history.js';

const errors = Object.fromEntries([400, 401, 403, 404].map((c) => [c, errorBodySchema]));

const historyQuery = z
  .object({ page: pageQueryField, limit: limitQueryField })
  .strict();

const eventKeys = ['requestId', 'correlationId', 'causationId', 'stream', 'type', 'userUuid', 'user', 'occurredAt', 'time', 'tenant'] as const;

/** Turns spec 2.1 filters into the event-log query; only equals / in (and time ranges) on the documented keys. */
function toLogQuery(body: z.infer<typeof paginationRequestSchema>, tenant: string, superAdmin: boolean): EventLogQuery {
  const q: EventLogQuery = { tenants: superAdmin ? null : [tenant], limit: body.limit, offset: pageOffset(body.page, body.limit), direction: body.sort[0]?.direction.toLowerCase() === 'asc' ? 'asc' : 'desc' };
  for (const [i, f] of body.filters.entries()) {
    const at = `body.filters.${i}`;
    if (!(eventKeys as readonly string[]).includes(f.key)) throw invalid(`${at}.key`, `cannot filter events on "${f.key}"`, `Filter on one of: ${eventKeys.join(', ')}`);
    const op = normaliseOperator(f.operator);
    if (f.key === 'occurredAt' || f.key === 'time') {
      const one = (v: unknown) => {
        const ms = epochMillis(v);
        if (ms === undefined) throw invalid(`${at}.value`, 'needs a time', 'Send epoch milliseconds or an ISO 8601 time with a zone', 'INVALID_DATE');
        return ms;
      };
      if (op === 'gte' || op === 'gt') q.from = one(f.value) + (op === 'gt' ? 1 : 0);
      else if (op === 'lte' || op === 'lt') q.to = one(f.value) - (op === 'lt' ? 1 : 0);
      else if (op === 'between' && Array.isArray(f.value) && f.value.length === 2) [q.from, q.to] = [one(f.value[0]), one(f.value[1])];
      else throw invalid(`${at}.operator`, `operator ${f.operator} does not apply to ${f.key}`, 'Use gte, gt, lte, lt or between [from, to]', 'INVALID_VALUE');
      continue;
    }
    const values = op === 'in' && Array.isArray(f.value) ? f.value : op === 'equals' ? [f.value] : null;
    if (!values || values.length === 0 || values.length > 100 || !values.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 300)) {
      throw invalid(`${at}.value`, `${f.key} takes equals with a string or in with a list of strings`, `Send {"key": "${f.key}", "operator": "equals", "value": "..."}`, 'INVALID_VALUE');
    }
    const strings = values as string[];
    switch (f.key) {
      case 'tenant':
        if (!superAdmin) throw invalid(`${at}.key`, 'only a SUPER_ADMIN can search other companies', 'Leave tenant out: the selected company is searched');
        q.tenants = strings;
        break;
      case 'stream':
        q.stream = strings;
        break;
      case 'user':
      case 'userUuid':
        q.userUuid = strings;
        break;
      default:
        q[f.key as 'requestId' | 'correlationId' | 'causationId' | 'type'] = strings;
    }
  }
  return q;
}

/** Record history (GET records/{uuid}/history) and the company event log (POST events/index). */
export const historyRoutes = (deps: { db: Db; history: RecordHistory }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/records/:uuid/history',
      { config: { auth: {} }, schema: { tags: ['records'], description: "The record's events, newest first: changed values (before and after), who, when, requestId.", params: z.object({ uuid: z.uuid() }), querystring: historyQuery, response: { 200: listEnvelope(historyEntrySchema), ...errors } } },
      async (request) => {
        const { page: n, limit } = request.query;
        const { total, entries } = await deps.history.page(companyActor(request).tenant, request.params.uuid, n, limit);
        return page(entries, total, n, limit);
      },
    );

    app.post(
      '/events/index',
      {
        config: { auth: { roles: ['ADMIN'] } },
        schema: {
          tags: ['events'],
          description: "The company's event log, newest first (sort [{key: 'occurredAt', direction: 'asc'}] for oldest first). Filters (equals / in): requestId, correlationId, causationId, stream (a `prefix*` too), type, userUuid; occurredAt with gte / lte / between. SUPER_ADMIN searches every company (or the ones named by a tenant filter).",
          body: paginationRequestSchema.nullable().optional().transform((v) => v ?? paginationRequestSchema.parse({})),
          response: { 200: listEnvelope(loggedEventSchema), ...errors },
        },
      },
      async (request) => {
        const actor = companyActor(request);
        const q = toLogQuery(request.body, actor.tenant, actor.superAdmin);
        const { rows, total } = await eventLog(deps.db, q);
        const data = rows.map(loggedEvent);
        return page(data, total, request.body.page, request.body.limit);
      },
    );
  };
