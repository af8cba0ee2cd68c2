import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { pageOffset } from '../../aggregates/kernel/paging.js';
import { sameJson } from '../../aggregates/kernel/same-json.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { actorRefSchema, actorUuidsOf, auditActors, type ActorColumns, type Actors } from '../http/audit-fields.js';

/**
 * The history and `asOf` of a resource, one implementation for all (docs/events.md, "History and
 * asOf of every resource"). A resource is described by an adapter; its events are read from its
 * stream, folded by the adapter's `evolve` (the row its projection writes) and rendered by the
 * current GET's mapper, so an `asOf` answer has the shape of the GET's.
 */
export interface ResourceHistoryAdapter<Row = any, View = unknown> {
  /** For messages: `Form`, `View`... */
  kind: string;
  /** Where the history is read (for the correctionSuggestion of a 404). */
  historyPath: string;
  /**
   * The resource as the caller may read it now, deleted or not, with the tenant of its stream;
   * null is the 404 (missing, another company's, not visible to the caller). `scope` is what the
   * slice hands over (e.g. the webhook owner).
   */
  find(request: FastifyRequest, uuid: string, scope: unknown): Promise<{ tenant: string; row: Row } | null>;
  stream(uuid: string): string;
  /**
   * The row after one more event, as the projection writes it (pure). `current` is today's row,
   * for what the projection takes from other rows (the `index`, the tenant).
   */
  evolve(row: Row | null, event: StoredEvent, current: Row): Row | null;
  /** The current GET's mapper. */
  render(row: Row, actors: Actors): View;
}

export type AsOf = { revision: number } | { time: number };

const change = z.object({ before: z.unknown(), after: z.unknown() });

/** One event of a resource's history: the same fields as a record's (`RecordHistoryEntry`). */
export const resourceHistoryEntrySchema = z
  .object({
    revision: z.number().int().describe("The event's revision in the resource's stream: what asOf takes"),
    type: z.string(),
    occurredAt: z.number().int(),
    user: actorRefSchema.describe('Who did it: the same shape as createdBy / updatedBy / deletedBy'),
    requestId: z.string(),
    correlationId: z.string(),
    causationId: z.string().nullable(),
    changes: z.record(z.string(), change).describe("For each field of the resource's GET answer that the event changed: its value before and after (null: none)"),
    data: z.record(z.string(), z.unknown()).describe('The event data; secrets, ciphertexts, hashes and tokens are "[redacted]"'),
  })
  .meta({ id: 'ResourceHistoryEntry' });
export type ResourceHistoryEntry = z.infer<typeof resourceHistoryEntrySchema>;

/** Bookkeeping fields every event moves: not listed as changes. */
const bookkeeping = new Set(['revision', 'index', 'createdAt', 'updatedAt', 'createdBy', 'updatedBy', 'deletedBy']);

/** The fields that differ between two renderings (null: the resource did not exist). */
export function changesBetween(before: unknown, after: unknown): Record<string, { before: unknown; after: unknown }> {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const out: Record<string, { before: unknown; after: unknown }> = {};
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (bookkeeping.has(key) || sameJson(b[key], a[key])) continue;
    out[key] = { before: b[key] ?? null, after: a[key] ?? null };
  }
  return out;
}

const secretKey = /secret|ciphertext|token|password|hash/i;
export const REDACTED = '[redacted]';

/** The event data with every value under a secret-like key replaced (booleans and nulls say nothing and stay). */
export function redact(value: unknown, key = ''): unknown {
  if (secretKey.test(key) && value !== null && typeof value !== 'boolean') return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redact(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, k)]));
  return value;
}

/** Renders without looking anyone up: for diffs, which leave the actor fields out. */
const nobody: Actors = { actor: () => null, member: () => null };

const notThen = (adapter: ResourceHistoryAdapter, uuid: string) =>
  new DomainError('NOT_FOUND', `${adapter.kind} ${uuid} did not exist then`, [
    {
      message: `${adapter.kind} ${uuid} has no revision at or before the requested asOf`,
      type: 'NOT_FOUND',
      correctionSuggestion: `Ask for a later revision or time (see GET ${adapter.historyPath})`,
    },
  ]);

const upTo = (at: AsOf) => (e: StoredEvent) => ('revision' in at ? e.revision <= at.revision : e.metadata.occurredAt <= at.time);

export function makeResourceHistory(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  async function found(adapter: ResourceHistoryAdapter, request: FastifyRequest, uuid: string, scope: unknown) {
    const hit = await adapter.find(request, uuid, scope);
    if (!hit) throw notFound(adapter.kind, uuid);
    return hit;
  }

  return {
    /** The resource's events, newest first, `limit` per page, each with what it changed in the GET's answer. */
    async page(adapter: ResourceHistoryAdapter, request: FastifyRequest, uuid: string, scope: unknown, pageNumber: number, limit: number) {
      const { tenant, row: current } = await found(adapter, request, uuid, scope);
      // Changes are renderings compared, so the page needs the fold from the first event: the
      // streams of these resources are short (a few to a few hundred events).
      const events = await store.readStream(tenant, adapter.stream(uuid));
      const offset = pageOffset(pageNumber, limit);
      const last = events.length - 1 - offset;
      const first = Math.max(0, last - limit + 1);
      const entries: Omit<ResourceHistoryEntry, 'user'>[] = [];
      let row: unknown = null;
      let shown: unknown = null;
      for (const [i, e] of events.entries()) {
        if (i > last) break;
        row = adapter.evolve(row, e, current);
        if (i < first - 1) continue; // only the page's events and the one before are rendered
        const now = row === null ? null : adapter.render(row, nobody);
        if (i >= first) {
          entries.push({
            revision: e.revision,
            type: e.type,
            occurredAt: e.metadata.occurredAt,
            requestId: e.metadata.requestId,
            correlationId: e.metadata.correlationId,
            causationId: e.metadata.causationId,
            changes: changesBetween(shown, now),
            data: redact(e.data) as Record<string, unknown>,
          });
        }
        shown = now;
      }
      const inPage = events.slice(first, last + 1);
      const actors = await auditActors(db, tenant, inPage.map((e) => e.metadata.userUuid));
      const withUsers = entries.map((entry, i) => ({ ...entry, user: actors.actor(inPage[i]!.metadata.userUuid) })).reverse();
      return { total: events.length, entries: withUsers as ResourceHistoryEntry[] };
    },

    /** The resource as its GET answered at a revision of its stream or a time (deletedAt set when it was deleted then). */
    async asOf(adapter: ResourceHistoryAdapter, request: FastifyRequest, uuid: string, scope: unknown, at: AsOf): Promise<unknown> {
      const { tenant, row: current } = await found(adapter, request, uuid, scope);
      const all = await store.readStream(tenant, adapter.stream(uuid), 'revision' in at ? { maxCount: at.revision + 1 } : {});
      const events = all.filter(upTo(at));
      let row: unknown = null;
      for (const e of events) row = adapter.evolve(row, e, current);
      if (row === null) throw notThen(adapter, uuid);
      return adapter.render(row, await auditActors(db, tenant, actorUuidsOf([row as ActorColumns])));
    },
  };
}

export type ResourceHistory = ReturnType<typeof makeResourceHistory>;
