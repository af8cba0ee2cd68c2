import { randomBytes } from 'node:crypto';
import { trackingSiteDecider } from '../../aggregates/tracking-site/tracking-site.decider.js';
import { trackingSiteStream } from '../../aggregates/tracking-site/tracking-site.events.js';
import { deleteTrackingBefore, rollUpTracking, saltOfDay, siteKeyOf, tenantOfSiteKey, trackingStats, type TrackedEventRow } from '../../read-models/tracking.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { IngestQueue } from './ingest-queue.js';
import { agentOf, networkOf, visitorHash } from './visitor.js';

export const DAY_MS = 86_400_000;
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

const KEY_CACHE_MS = 5000;
const KEY_CACHE_MAX = 10_000;
const ROLLUP_CHUNK = 20_000;
// pg_advisory_xact_lock key of the roll-up: one process rolls up at a time.
const ROLLUP_LOCK = 740_040;

export interface IncomingEvent {
  eventId: string;
  type: 'pageview' | 'event';
  name: string;
  path: string;
  referrer: string;
}

/** Visitor tracking of a company: its public site key (events), the ingest, the daily counts. */
export function makeTrackingService(deps: { db: Db; store: EventStore; queue: IngestQueue; retentionDays: number }) {
  const { db, store, queue } = deps;
  const keys = new Map<string, { tenant: string | null; until: number }>();
  const salts = new Map<number, string>();

  async function tenantOf(siteKey: string, now: number): Promise<string | null> {
    const hit = keys.get(siteKey);
    if (hit && hit.until > now) return hit.tenant;
    const tenant = await tenantOfSiteKey(db, siteKey);
    if (keys.size >= KEY_CACHE_MAX) keys.clear();
    keys.set(siteKey, { tenant, until: now + KEY_CACHE_MS });
    return tenant;
  }

  async function saltFor(day: number): Promise<string> {
    const known = salts.get(day);
    if (known) return known;
    const salt = await saltOfDay(db, day, randomBytes(24).toString('base64url'));
    for (const d of salts.keys()) if (d < day - 1) salts.delete(d);
    salts.set(day, salt);
    return salt;
  }

  return {
    siteKey: (tenant: string) => siteKeyOf(db, tenant),

    /** Issues the company's site key, or rotates it: the old key stops working (other processes within 5 s). */
    async issueKey(ctx: CommandContext): Promise<string> {
      const siteKey = `site_${randomBytes(18).toString('base64url')}`;
      const old = await siteKeyOf(db, ctx.tenant);
      await handleCommand({ store, decider: trackingSiteDecider, streamId: trackingSiteStream(ctx.tenant), command: { type: 'IssueSiteKey', siteKey }, context: ctx });
      if (old) keys.delete(old);
      return siteKey;
    },

    tenantOf,

    /** Writes one sender's batch; resolves once committed. */
    async ingest(tenant: string, batchId: string, events: readonly IncomingEvent[], from: { address: string; userAgent: string }, now: number): Promise<void> {
      const day = dayOf(now);
      const visitor = visitorHash(await saltFor(day), tenant, from.address, from.userAgent);
      const network = networkOf(from.address);
      const agent = agentOf(from.userAgent);
      const rows: TrackedEventRow[] = events.map((e) => ({
        tenant,
        event_id: e.eventId,
        batch_id: batchId,
        day,
        received_at: now,
        kind: e.type,
        name: e.name,
        path: e.path,
        referrer: e.referrer,
        visitor,
        network,
        ...agent,
      }));
      await queue.write(batchId, rows);
    },

    /** Adds every queued event to the daily counts (one process at a time); returns how many. */
    async rollUp(): Promise<number> {
      let total = 0;
      for (;;) {
        const n = await db.transaction(async (tx) => {
          await tx.query('select pg_advisory_xact_lock($1)', [ROLLUP_LOCK]);
          return rollUpTracking(tx, ROLLUP_CHUNK);
        });
        total += n;
        if (n < ROLLUP_CHUNK) return total;
      }
    },

    /** Deletes what is past the retention. */
    sweep: (now: number) => deleteTrackingBefore(db, dayOf(now) - deps.retentionDays + 1, dayOf(now)),

    async stats(tenant: string, fromDay: number, toDay: number) {
      await this.rollUp();
      return trackingStats(db, tenant, fromDay, toDay, 20);
    },
  };
}
export type TrackingService = ReturnType<typeof makeTrackingService>;
