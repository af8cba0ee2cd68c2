import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { invalid } from '../../aggregates/kernel/errors.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { siteKeySchema, statsQuery, statsSchema } from './tracking.schemas.js';
import { DAY_MS, dayOf, type TrackingService } from './tracking.service.js';

const tags = ['tracking'];
const admin = { auth: { roles: ['ADMIN'] as const } };
const MAX_DAYS = 366;
const iso = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The company's tracking site key and its daily counts: ADMIN only. */
export const trackingRoutes = (deps: { tracking: TrackingService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { tracking } = deps;

    app.get('/site', { config: admin, schema: { tags, description: "The company's public site key (null: none issued yet).", response: { 200: envelope(siteKeySchema) } } }, async (request) =>
      ok({ siteKey: await tracking.siteKey(companyActor(request).tenant) }),
    );

    app.post(
      '/site/key',
      { config: admin, schema: { tags, description: 'Issues the company\'s site key, or rotates it: the old key stops working.', response: { 201: envelope(siteKeySchema) } } },
      async (request, reply) => {
        reply.code(201);
        return ok({ siteKey: await tracking.issueKey(commandContext(request)) }, 'created');
      },
    );

    app.get('/stats', { config: admin, schema: { tags, description: 'Page views, custom events and unique visitors per day (UTC) and the top pages.', querystring: statsQuery, response: { 200: envelope(statsSchema) } } }, async (request) => {
      const to = request.query.to ? dayOf(Date.parse(request.query.to)) : dayOf(Date.now());
      const from = request.query.from ? dayOf(Date.parse(request.query.from)) : to - 29;
      if (from > to || to - from >= MAX_DAYS) throw invalid('from', `from must be on or before to, at most ${MAX_DAYS} days apart`, 'Send a shorter range of days');
      const { days, pages } = await tracking.stats(companyActor(request).tenant, from, to);
      return ok({
        from: iso(from),
        to: iso(to),
        days: days.map((d) => ({ day: iso(d.day), views: d.views, events: d.events, visitors: d.visitors })),
        pages: pages.map((p) => ({ path: p.path, views: p.views, events: p.events, visitors: p.visitors })),
      });
    });
  };
