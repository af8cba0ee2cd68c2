import { z } from 'zod';

/** The live event feed (issue 38, docs/events.md "The live feed"). Spread into src/config.ts. */
export const eventsConfigShape = {
  // How often an open feed reads the log for new events.
  EVENT_FEED_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  // An SSE comment line this often, so proxies and clients see the stream is alive.
  EVENT_FEED_HEARTBEAT_MS: z.coerce.number().int().min(10).max(300_000).default(15_000),
  // Bytes the server holds for a client before it waits for the client to read them.
  EVENT_FEED_MAX_BUFFERED_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  // A client that has not read what the server holds for it within this long is cut (`event: cut`) and resumes by id.
  EVENT_FEED_STALL_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  // A feed ends (with `event: cut`) after this long; the client reconnects and is authorised again.
  EVENT_FEED_MAX_MS: z.coerce.number().int().min(1000).max(24 * 3600_000).default(15 * 60_000),
  // Events of the whole log one read of a feed looks at.
  EVENT_FEED_SCAN_ROWS: z.coerce.number().int().min(1).max(10_000).default(1000),
};
