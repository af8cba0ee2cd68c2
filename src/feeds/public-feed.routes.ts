import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import { markObjectVersion, type FeedRow } from '../../read-models/feeds.queries.js';
import type { Db } from '../db/db.js';
import { etagMatches } from '../http/etag.js';
import { MAX_PATH_PARAM_LENGTH } from '../http/path-params.js';
import { errorResponses } from '../schema/http-common.js';
import { feedPages, feedVersion } from './feed-records.js';
import { feedWriter } from './feed-writers.js';
import { publicFeedPath } from './feeds.schemas.js';
import type { FeedsService } from './feeds.service.js';

/** A token as `newToken` makes it (32 random bytes, base64url); anything else is no feed. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const gone = () => notFound('Feed', 'requested');

/** Whether an If-Modified-Since header is at or after `lastModifiedMs` (HTTP dates have whole seconds). */
function notModifiedSince(header: string | undefined, lastModifiedMs: number): boolean {
  if (!header || header.length > 100) return false;
  const since = Date.parse(header);
  return Number.isFinite(since) && Math.floor(lastModifiedMs / 1000) * 1000 <= since;
}

/**
 * `GET /api/v2/feeds/public/{token}` (spec 1.15, docs/feeds.md): a feed without login, at the URL
 * its token makes. A wrong, rotated-away, deleted or disabled feed's token is the same 404 and the
 * answer names nothing. Rate limited per caller beyond the global limiter. The body is streamed
 * record by record (one page of the engine in memory at a time); ETag and Last-Modified come from
 * the object's change count and the feed's revision, and a matching If-None-Match (or, without
 * one, If-Modified-Since) is a 304 with no record read.
 */
export const publicFeedRoutes = (deps: { db: Db; feeds: FeedsService; appUrl: string; rateLimitMax: number }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, feeds } = deps;
    app.get(
      '/:token',
      {
        config: { auth: 'public', rateLimit: { max: deps.rateLimitMax, timeWindow: 60_000 } },
        schema: {
          tags: ['feeds (public)'],
          description: 'A feed, no login: JSON Feed 1.1 (application/feed+json), RSS 2.0 (application/rss+xml) or the Indeed job XML (application/xml), streamed. 304 on a matching If-None-Match.',
          params: z.object({ token: z.string().max(MAX_PATH_PARAM_LENGTH) }),
          headers: z.object({ 'if-none-match': z.string().max(2000).optional(), 'if-modified-since': z.string().max(100).optional() }).loose(),
          response: { 200: z.string().describe('The feed document'), 304: z.null().describe('Not modified: the ETag sent is current'), ...errorResponses(404, 429) },
        },
      },
      async (request, reply) => {
        const { token } = request.params;
        const feed: FeedRow | null = TOKEN.test(token) ? await feeds.byToken(token) : null;
        if (!feed) throw gone();
        const now = Date.now();
        const version = await feedVersion(db, feed);
        const seen = await markObjectVersion(db, feed.tenant, feed.object_uuid, version, now);
        const lastModified = Math.max(seen, feed.updated_at);
        const etag = `"${feed.revision}.${version}"`;
        reply.header('etag', etag).header('last-modified', new Date(lastModified).toUTCString()).header('cache-control', 'public, max-age=60').header('x-content-type-options', 'nosniff');
        const inm = request.headers['if-none-match'];
        if (inm !== undefined ? etagMatches(inm, etag) : notModifiedSince(request.headers['if-modified-since'], lastModified)) {
          return reply.code(304).send(null);
        }
        const writer = feedWriter(feed.format, {
          title: feed.title,
          description: feed.description,
          homeUrl: feed.home_url,
          feedUrl: `${deps.appUrl}${publicFeedPath(token)}`,
          lastModified,
          fields: feed.fields,
        });
        let aborted = false;
        reply.raw.once('close', () => {
          aborted = true;
        });
        const log = request.log;
        async function* body() {
          yield writer.head();
          for await (const records of feedPages(db, feed!, () => aborted)) {
            // One chunk per page: the records' items, written one by one.
            let chunk = '';
            for (const r of records) chunk += writer.item(r);
            yield chunk;
          }
          yield writer.tail();
        }
        const stream = Readable.from(body(), { objectMode: false });
        stream.on('error', (err) => log.error({ err, feed: feed.feed_uuid }, 'feed stream failed'));
        // A stream is sent as it is (no serializer): the 200 schema documents the document it writes.
        return reply.code(200).type(writer.contentType).send(stream as unknown as string);
      },
    );
  };
