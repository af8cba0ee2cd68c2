import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { Sql } from '../../ports/sql.js';
import { eventFeedHead, eventFeedPage, type FeedNarrowing, type LogPlace } from '../../read-models/event-feed.queries.js';
import { loggedEvent } from './logged-event.js';
import { feedId, type Cut, type FeedStart } from './events.schemas.js';

export interface FeedSettings {
  pollMs: number;
  heartbeatMs: number;
  maxBufferedBytes: number;
  stallMs: number;
  maxMs: number;
  scanRows: number;
}

/** One open feed: what the module ends on close. */
export interface OpenFeed {
  cut(reason: Cut['reason']): void;
}

/** The app's open feeds: started by the route, cut when the app closes (events.module.ts). */
export interface EventFeeds {
  open(reply: FastifyReply, feed: { tenant: string; start: FeedStart; filter: FeedNarrowing }): Promise<void>;
}

let active = 0;

/** Feeds of this process whose timers and reads are still running (tests check it drops to 0). */
export const activeEventFeeds = () => active;

const cutMessages: Record<Cut['reason'], string> = {
  'slow-client': 'The client did not read what the server held for it in time; reconnect with Last-Event-ID (or after=) set to resumeAfter',
  'max-duration': 'The stream reached its longest duration; reconnect with Last-Event-ID set to resumeAfter',
  shutdown: 'The server is shutting down; reconnect with Last-Event-ID set to resumeAfter',
  error: 'The server could not read the log; reconnect with Last-Event-ID set to resumeAfter',
};

/** Where a feed starts reading; `now`: past the log's safe head, leaving out what was committed before the request. */
export async function startPlace(db: Sql, start: FeedStart): Promise<{ after: LogPlace; committedAfter?: string }> {
  if (start !== 'now') return { after: start };
  const { after, snapshot } = await eventFeedHead(db);
  return { after, committedAfter: snapshot };
}

/**
 * Streams a tenant's events to `res` as Server-Sent Events until the client goes or the feed is
 * cut: reads a page, writes it, and waits for the next poll (or, when the socket is full, for it
 * to drain). Every timer and listener is released in `finish`, whatever ends the feed.
 */
export function openFeed(
  deps: { db: Sql; settings: FeedSettings; log: FastifyBaseLogger; onEnd(feed: OpenFeed): void },
  res: ServerResponse,
  feed: { tenant: string; after: LogPlace; filter: FeedNarrowing; committedAfter?: string },
): OpenFeed {
  const { db, settings: s, log } = deps;
  let readTo = feed.after;
  let resumeAfter = feedId(feed.after);
  let ended = false;
  let poll: NodeJS.Timeout | undefined;
  let stall: NodeJS.Timeout | undefined;
  let drained: (() => void) | undefined;
  active++;

  const finish = () => {
    if (ended) return;
    ended = true;
    active--;
    clearTimeout(poll);
    clearTimeout(stall);
    clearInterval(heartbeat);
    clearTimeout(lifetime);
    res.off('drain', onDrain);
    drained?.();
    deps.onEnd(self);
  };
  const onDrain = () => {
    clearTimeout(stall);
    const wake = drained;
    drained = undefined;
    wake?.();
  };
  res.on('drain', onDrain);
  res.once('close', finish);
  res.on('error', finish);

  const cut = (reason: Cut['reason']) => {
    if (ended) return;
    const body: Cut = { reason, resumeAfter, message: cutMessages[reason] };
    res.end(`id: ${resumeAfter}\nevent: cut\ndata: ${JSON.stringify(body)}\n\n`);
    // A client that reads nothing would hold the socket open on what is still unsent.
    const socket = res.socket;
    finish();
    if (!socket) return;
    // On shutdown the connection is not kept alive: the server waits for it to close.
    if (reason === 'shutdown') res.once('finish', () => (typeof socket.destroySoon === 'function' ? socket.destroySoon() : socket.destroy()));
    if (res.writableFinished) return;
    const drop = setTimeout(() => socket.destroy(), reason === 'shutdown' ? Math.min(1000, s.stallMs) : s.stallMs);
    drop.unref();
    res.once('finish', () => clearTimeout(drop));
    socket.once('close', () => clearTimeout(drop));
  };
  const self: OpenFeed = { cut };

  /**
   * Backpressure: once the socket refused a write (`write` returned false) and holds more than
   * `maxBufferedBytes`, or between pages while it is full, wait for it to drain. A client that does
   * not drain within `stallMs` is cut: resolves false, and the feed has ended.
   */
  const drainedInTime = (bound: number) =>
    !res.writableNeedDrain || res.writableLength <= bound
      ? Promise.resolve(true)
      : new Promise<boolean>((resolve) => {
          drained = () => resolve(!ended);
          stall = setTimeout(() => cut('slow-client'), s.stallMs);
        });

  const heartbeat = setInterval(() => {
    if (!res.writableNeedDrain) res.write(': heartbeat\n\n');
  }, s.heartbeatMs);
  const lifetime = setTimeout(() => cut('max-duration'), s.maxMs);

  const read = async () => {
    poll = undefined;
    try {
      for (;;) {
        const page = await eventFeedPage(db, feed.tenant, readTo, feed.filter, s.scanRows, feed.committedAfter);
        if (ended) return;
        for (const row of page.rows) {
          const id = feedId({ txId: row.tx_id, position: Number(row.position) });
          res.write(`id: ${id}\nevent: ${row.type}\ndata: ${JSON.stringify(loggedEvent(row))}\n\n`);
          resumeAfter = id;
          if (!(await drainedInTime(s.maxBufferedBytes))) return;
        }
        if (page.readTo) readTo = page.readTo;
        if (!(await drainedInTime(0))) return;
        if (page.scanned < s.scanRows) break;
      }
      poll = setTimeout(read, s.pollMs);
    } catch (err) {
      if (ended) return;
      log.warn({ err }, 'event feed: reading the log failed');
      cut('error');
    }
  };

  res.write('retry: 1000\n: connected\n\n');
  void read();
  return self;
}
