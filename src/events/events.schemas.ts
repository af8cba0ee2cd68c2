import { z } from 'zod';
import { invalid } from '../../aggregates/kernel/errors.js';
import type { EventFeedFilter, LogPlace } from '../../read-models/event-feed.queries.js';

const listParam = z.union([z.string(), z.array(z.string())]).optional();

/** `GET /api/v2/events/stream`'s query: where to start and the filters (a list: repeated or comma-separated). */
export const feedQuerySchema = z
  .object({
    after: z.string().optional().describe('Start after this event id (`<transaction>:<position>`, as sent), or `now`; absent: the first event. A `Last-Event-ID` header wins over it.'),
    type: listParam.describe('Event types, e.g. RecordCreated,RecordUpdated'),
    stream: listParam.describe('Stream ids, or a prefix ending in * (record-*)'),
    object: listParam.describe("Object names or uuids: events whose data names the object (records' events, views, forms, pages)"),
    requestId: listParam.describe('The events one request (X-Request-Id) caused'),
  })
  .strict();
export type FeedQuery = z.infer<typeof feedQuerySchema>;

const MAX_VALUES = 50;

const rules: Record<keyof EventFeedFilter, { pattern: RegExp; suggestion: string }> = {
  type: { pattern: /^[A-Z][A-Za-z0-9]{0,99}$/, suggestion: 'Send event type names as docs/events.md lists them, e.g. type=RecordCreated,RecordUpdated' },
  stream: { pattern: /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,299}\*?$|^\*$/, suggestion: 'Send stream ids (record-<uuid>) or a prefix ending in * (record-*)' },
  object: { pattern: /^[A-Za-z0-9_-]{1,100}$/, suggestion: "Send an object's name or uuid, e.g. object=contact" },
  requestId: { pattern: /^[\w.:@-]{1,128}$/, suggestion: 'Send request ids as X-Request-Id carries them (1-128 of A-Z a-z 0-9 _ . : @ -)' },
};

function listOf(key: keyof EventFeedFilter, value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim());
  const rule = rules[key];
  const bad = values.find((v) => !rule.pattern.test(v));
  if (bad !== undefined) throw invalid(`query.${key}`, `query.${key}: "${bad.slice(0, 60)}" is not a valid ${key}`, rule.suggestion, 'INVALID_VALUE');
  if (values.length > MAX_VALUES) throw invalid(`query.${key}`, `query.${key}: at most ${MAX_VALUES} values`, `Send at most ${MAX_VALUES} values of ${key}, or open more streams`, 'INVALID_VALUE');
  return values;
}

/** The filters of the query, checked: a bad value is a 400 naming the parameter. */
export function feedFilter(q: FeedQuery): EventFeedFilter {
  const filter: EventFeedFilter = {};
  for (const key of Object.keys(rules) as (keyof EventFeedFilter)[]) {
    const values = listOf(key, q[key]);
    if (values) filter[key] = values;
  }
  return filter;
}

const PLACE = /^(\d{1,19}):(\d{1,16})$/;

/** Where a feed starts: `now`, after an id it sent, or (nothing given) the first event. */
export type FeedStart = 'now' | LogPlace;

/** Reads `Last-Event-ID` or `after`; anything else than an id this feed sends (or `now`) is a 400. */
export function feedStart(lastEventId: string | string[] | undefined, after: string | undefined): FeedStart {
  const [field, value] = lastEventId !== undefined ? ['headers.last-event-id', Array.isArray(lastEventId) ? lastEventId.join(',') : lastEventId] : ['query.after', after];
  if (value === undefined) return { txId: '0', position: 0 };
  const trimmed = value.trim();
  if (trimmed === 'now' && field === 'query.after') return 'now';
  const m = PLACE.exec(trimmed);
  if (!m || !Number.isSafeInteger(Number(m[2])) || BigInt(m[1]!) >= 2n ** 63n) {
    throw invalid(
      field,
      `${field}: "${trimmed.slice(0, 60)}" is not an event id of this stream`,
      'Send the id of the last event received (<transaction>:<position>, as the stream sent it), after=now for new events only, or nothing to start from the first event',
      'INVALID_VALUE',
    );
  }
  return { txId: m[1]!, position: Number(m[2]) };
}

/** The event id a feed sends: the event's place in the log's order. */
export const feedId = (place: LogPlace) => `${place.txId}:${place.position}`;

/** Where `event: cut` tells the client to resume. */
export const cutSchema = z
  .object({
    reason: z.enum(['slow-client', 'max-duration', 'shutdown', 'error']),
    resumeAfter: z.string(),
    message: z.string(),
  })
  .meta({ id: 'EventFeedCut' });
export type Cut = z.infer<typeof cutSchema>;
