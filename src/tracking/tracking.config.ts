import { z } from 'zod';

/** Visitor tracking (issue 40, docs/tracking.md). Spread into src/config.ts. */
export const trackingConfigShape = {
  // Days raw tracked events and daily counts are kept; older ones are deleted.
  TRACKING_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  // Ingest batches a process holds at once (waiting or being written); one more is answered 429.
  TRACKING_MAX_PENDING: z.coerce.number().int().min(1).max(10_000).default(256),
  // Concurrent insert statements of the ingest (each takes every waiting batch, up to TRACKING_FLUSH_EVENTS events).
  TRACKING_FLUSHES: z.coerce.number().int().min(1).max(64).default(4),
  TRACKING_FLUSH_EVENTS: z.coerce.number().int().min(1).max(100_000).default(2000),
  // How often accepted events are added to the daily counts (0: never, tests call the roll-up).
  TRACKING_ROLLUP_MS: z.coerce.number().int().min(0).default(1000),
  // The largest ingest body.
  TRACKING_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(4 * 1024 * 1024).default(128 * 1024),
};
