import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { feedsRoutes } from './feeds.routes.js';
import { makeFeedsService } from './feeds.service.js';
import { publicFeedRoutes } from './public-feed.routes.js';
import { FEED_PUBLIC_PREFIX } from './feeds.schemas.js';

/**
 * Feeds (issue 37, spec 1.15): the admin routes under /api/v2/feeds and the public feed under
 * /api/v2/feeds/public/{token} (docs/feeds.md).
 */
export async function registerFeeds(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore }) {
  const { db, store, config } = deps;
  const feeds = makeFeedsService({ db, store });
  await app.register(feedsRoutes({ feeds }), { prefix: '/api/v2/feeds' });
  await app.register(publicFeedRoutes({ db, feeds, appUrl: config.APP_URL.replace(/\/+$/, ''), rateLimitMax: config.FEED_RATE_LIMIT_MAX }), { prefix: FEED_PUBLIC_PREFIX.replace(/\/$/, '') });
}
