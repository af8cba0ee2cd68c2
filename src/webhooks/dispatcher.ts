import type { FastifyBaseLogger } from 'fastify';
import { APP_INSTALLED, type DeliveryRow, type WebhookRow } from '../../read-models/webhooks.queries.js';
import type { Db } from '../db/db.js';
import { signatureHeaders, UrlRefused, type UrlGuard } from '../outbound/index.js';
import { postDelivery, type SendResult } from './post-delivery.js';
import { webhookDeliveries } from '../metrics/metrics.js';

export interface DispatcherOptions {
  db: Db;
  guard: UrlGuard;
  log: FastifyBaseLogger;
  timeoutMs: number;
  concurrency: number;
  pollMs: number;
  maxBackoffMs: number;
  /** Per webhook: at most `rateLimitMax` attempts in any `rateLimitWindowMs`. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  userAgent?: string;
  /** For tests: the jitter factor source (0..1). */
  random?: () => number;
}

export interface Dispatcher {
  /** Look for due deliveries now (after an enqueue, a redelivery, a replay). */
  wake(): void;
  /** Stops claiming; aborts requests in flight and hands their rows back untouched. */
  stop(): Promise<void>;
}

/**
 * The delay before retry `n` (1 for the first retry): exponential from the webhook's
 * retryBackoffMs, plus up to 20 % jitter, never less than the exponential value, capped.
 */
export function backoffMs(baseMs: number, n: number, maxMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** (n - 1), maxMs);
  return Math.round(Math.min(exponential * (1 + 0.2 * random()), Math.max(maxMs, baseMs)));
}

/**
 * Claims due rows: pending, due, not leased, and the oldest pending row of their (webhook,
 * record) so that one record's deliveries leave in order. `skip locked` lets several instances
 * claim side by side; the lease hands a row back if its claimant dies.
 */
async function claim(db: Db, now: number, limit: number, leaseMs: number): Promise<DeliveryRow[]> {
  return db.transaction((tx) =>
    tx.query<DeliveryRow>(
      `with due as (
         select d.delivery_uuid from webhook_deliveries d
         where d.status = 'pending' and d.next_attempt_at <= $1 and (d.locked_until is null or d.locked_until < $1)
           and not exists (
             select 1 from webhook_deliveries e
             where e.status = 'pending' and e.tenant = d.tenant and e.webhook_uuid = d.webhook_uuid and e.order_key = d.order_key and e.seq < d.seq)
         order by d.next_attempt_at, d.seq
         limit $2
         for update skip locked)
       update webhook_deliveries w set locked_until = $3 from due where w.delivery_uuid = due.delivery_uuid
       returning w.*`,
      [now, limit, now + leaseMs],
    ),
  );
}

async function release(db: Db, deliveryUuid: string, nextAttemptAt?: number) {
  await db.query(
    'update webhook_deliveries set locked_until = null, next_attempt_at = coalesce($2, next_attempt_at) where delivery_uuid = $1',
    [deliveryUuid, nextAttemptAt ?? null],
  );
}

async function park(db: Db, row: DeliveryRow, error: string, now: number) {
  webhookDeliveries.inc({ outcome: 'refused' });
  await db.query(`update webhook_deliveries set status = 'failed', locked_until = null, last_error = $2, completed_at = $3 where delivery_uuid = $1`, [row.delivery_uuid, error, now]);
}

/** Records one attempt and its consequence (succeeded, retry at, or parked) in one transaction. */
async function recordAttempt(db: Db, row: DeliveryRow, result: SendResult, startedAt: number, next: { status: 'pending' | 'succeeded' | 'failed'; at: number | null }) {
  const attempt = row.attempts + 1;
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into webhook_delivery_attempts (delivery_uuid, attempt, started_at, status_code, latency_ms, outcome, error)
       values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing`,
      [row.delivery_uuid, attempt, startedAt, result.statusCode, result.latencyMs, result.ok ? 'succeeded' : 'failed', result.error],
    );
    await tx.query(
      `update webhook_deliveries set attempts = $2, status = $3, next_attempt_at = coalesce($4, next_attempt_at), locked_until = null,
         last_attempt_at = $5, last_status_code = $6, last_latency_ms = $7, last_error = $8, completed_at = $9
       where delivery_uuid = $1`,
      [row.delivery_uuid, attempt, next.status, next.at, startedAt, result.statusCode, result.latencyMs, result.error, next.status === 'pending' ? null : Date.now()],
    );
  });
  webhookDeliveries.inc({ outcome: result.ok ? 'succeeded' : next.status === 'pending' ? 'retrying' : 'failed' });
}

/** Sliding-window rate limit per webhook, in this process. */
function makeRateLimiter(max: number, windowMs: number) {
  const recent = new Map<string, number[]>();
  return {
    /** Takes a slot now, or tells when one frees up. */
    take(key: string, now: number): { ok: true } | { ok: false; freeAt: number } {
      const times = (recent.get(key) ?? []).filter((t) => t > now - windowMs);
      if (times.length >= max) {
        recent.set(key, times);
        return { ok: false, freeAt: times[0]! + windowMs };
      }
      times.push(now);
      recent.set(key, times);
      return { ok: true };
    },
  };
}

/**
 * Sends due outbox rows: signed with the webhook's secret (Standard Webhooks), to the address the
 * URL guard resolved and pinned on this attempt. Only a 2xx is success; otherwise the row is
 * retried after the backoff while retryEnabled and attempts stay within 1 + maxRetries, then
 * parked as failed.
 */
export function startDispatcher(o: DispatcherOptions): Dispatcher {
  const { db } = o;
  const log = o.log.child({ component: 'webhook-dispatcher' });
  const random = o.random ?? Math.random;
  const limiter = makeRateLimiter(o.rateLimitMax, o.rateLimitWindowMs);
  const leaseMs = o.timeoutMs * 2 + 5_000;
  const userAgent = o.userAgent ?? 'platform-webhooks/1';
  const abort = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let pumping = false;
  let again = false;

  function later(ms: number) {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      void pump();
    }, Math.max(0, ms));
    t.unref();
    timers.add(t);
  }

  async function webhookOf(row: DeliveryRow) {
    const [w] = await db.query<WebhookRow & { secret: string | null; app_installed: boolean }>(
      `select w.*, s.secret, ${APP_INSTALLED} as app_installed from rm_webhooks w left join webhook_secrets s on s.tenant = w.tenant and s.webhook_uuid = w.webhook_uuid
       where w.tenant = $1 and w.webhook_uuid = $2`,
      [row.tenant, row.webhook_uuid],
    );
    return w;
  }

  async function send(row: DeliveryRow) {
    const webhook = await webhookOf(row);
    const now = Date.now();
    if (!webhook || webhook.deleted_at !== null) return park(db, row, 'webhook deleted', now);
    if (!webhook.secret) return park(db, row, 'webhook has no secret', now);
    if (!webhook.app_installed) return park(db, row, 'app uninstalled', now);
    // The attempt starts when it takes its slot: the limit holds for attempt start times.
    const startedAt = Date.now();
    const slot = limiter.take(webhook.webhook_uuid, startedAt);
    if (!slot.ok) {
      await release(db, row.delivery_uuid, slot.freeAt);
      later(slot.freeAt - startedAt);
      return;
    }
    let result: SendResult;
    try {
      const target = await o.guard.resolve(webhook.url);
      const headers = signatureHeaders(webhook.secret, row.message_id, new Date(startedAt), row.payload);
      result = await postDelivery(target, headers, row.payload, { timeoutMs: o.timeoutMs, signal: abort.signal, userAgent });
    } catch (err) {
      if (!(err instanceof UrlRefused)) throw err;
      result = { statusCode: null, latencyMs: Date.now() - startedAt, ok: false, error: `refused: ${err.reason}` };
    }
    if (abort.signal.aborted && !result.ok) {
      await release(db, row.delivery_uuid);
      return;
    }
    if (result.ok) return recordAttempt(db, row, result, startedAt, { status: 'succeeded', at: null });
    const failures = row.attempts + 1;
    if (webhook.retry_enabled && failures <= webhook.max_retries) {
      const delay = backoffMs(webhook.retry_backoff_ms, failures, o.maxBackoffMs, random);
      await recordAttempt(db, row, result, startedAt, { status: 'pending', at: Date.now() + delay });
      later(delay);
      return;
    }
    log.warn({ tenant: row.tenant, webhookUuid: row.webhook_uuid, deliveryUuid: row.delivery_uuid, attempts: failures }, 'webhook delivery parked as failed');
    await recordAttempt(db, row, result, startedAt, { status: 'failed', at: null });
  }

  async function pump() {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        while (!stopped && inFlight.size < o.concurrency) {
          const rows = await claim(db, Date.now(), o.concurrency - inFlight.size, leaseMs);
          if (rows.length === 0) break;
          for (const row of rows) {
            const p: Promise<void> = send(row)
              .catch((err) => {
                log.error({ err, deliveryUuid: row.delivery_uuid }, 'webhook delivery failed unexpectedly');
                return release(db, row.delivery_uuid, Date.now() + 1000).catch(() => {});
              })
              .finally(() => {
                inFlight.delete(p);
                if (!stopped) void pump();
              });
            inFlight.add(p);
          }
        }
      } while (again && !stopped);
    } catch (err) {
      if (!stopped) log.error({ err }, 'webhook dispatcher could not claim deliveries');
    } finally {
      pumping = false;
    }
  }

  const poll = setInterval(() => void pump(), o.pollMs);
  poll.unref();
  void pump();

  return {
    wake: () => void pump(),
    async stop() {
      stopped = true;
      clearInterval(poll);
      for (const t of timers) clearTimeout(t);
      abort.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
