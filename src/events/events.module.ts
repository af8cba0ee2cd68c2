import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { openFeed, startPlace, type EventFeeds, type FeedSettings, type OpenFeed } from './event-feed.js';
import { eventsRoutes } from './events.routes.js';

export { activeEventFeeds } from './event-feed.js';

function makeEventFeeds(db: Db, settings: FeedSettings) {
  const open = new Set<OpenFeed>();
  const feeds: EventFeeds = {
    async open(reply, { tenant, start, filter }) {
      const place = await startPlace(db, start);
      reply.hijack();
      const res = reply.raw;
      // Gone while the start was read: its close has been and gone, nothing would end the feed.
      if (res.destroyed || !res.socket || res.socket.destroyed) return;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // Proxies that buffer (nginx) would hold the events back.
        'x-accel-buffering': 'no',
        'x-request-id': reply.request.id,
      });
      const feed = openFeed({ db, settings, log: reply.log, onEnd: (f) => open.delete(f) }, res, { tenant, filter, ...place });
      open.add(feed);
    },
  };
  return { feeds, cutAll: () => [...open].forEach((f) => f.cut('shutdown')) };
}

/** The tenant event feed (issue 38): `GET /api/v2/events/stream`, Server-Sent Events. */
export async function registerEvents(app: FastifyInstance, deps: { config: Config; db: Db }) {
  const { config: c } = deps;
  const { feeds, cutAll } = makeEventFeeds(deps.db, {
    pollMs: c.EVENT_FEED_POLL_MS,
    heartbeatMs: c.EVENT_FEED_HEARTBEAT_MS,
    maxBufferedBytes: c.EVENT_FEED_MAX_BUFFERED_BYTES,
    stallMs: c.EVENT_FEED_STALL_MS,
    maxMs: c.EVENT_FEED_MAX_MS,
    scanRows: c.EVENT_FEED_SCAN_ROWS,
  });
  // Open streams would keep the server from closing: each gets its last message first.
  app.addHook('preClose', async () => cutAll());
  await app.register(eventsRoutes({ feeds }), { prefix: '/api/v2/events' });
  // The same feed, narrowed to one member, is the live inbox (src/notifications/).
  return { feeds };
}
