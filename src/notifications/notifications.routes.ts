import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { notificationKinds } from '../../aggregates/notification/notification.events.js';
import { INBOX_STREAM_PREFIX, NOTIFICATION_STREAM_PREFIX } from '../../aggregates/notification/notification.events.js';
import type { EventFeeds } from '../events/event-feed.js';
import { feedStart } from '../events/events.schemas.js';
import { notificationSchema, preferencesBodySchema, preferencesSchema, toNotification } from './notifications.schemas.js';
import type { NotificationsService } from './notifications.service.js';

const tags = ['notifications'];
const params = z.object({ uuid: z.uuid() });
// Every member has an inbox; each sees only its own.
const member = { auth: {} };
const memberContext = (request: FastifyRequest) => ({ ...commandContext(request), userUuid: companyActor(request).userUuid });

const streamDescription = `Your notifications, live, as Server-Sent Events: \`event: NotificationAdded\` (a new one), \`NotificationRead\`, \`InboxPreferencesSet\`;
\`id:\` the event's place in the log. Reconnect with \`Last-Event-ID\` (or \`?after=\`) set to the last id received: nothing lost, nothing twice.
The same stream as GET events/stream (heartbeats, backpressure, \`event: cut\`), narrowed to your inbox. Details: docs/notifications.md.`;

/** The inbox (issue 39): `POST notifications/index`, unread count, read, read all, preferences, and the live stream. */
export const notificationsRoutes = (deps: { notifications: NotificationsService; feeds: EventFeeds }): FastifyPluginAsyncZod =>
  async (app) => {
    const { notifications, feeds } = deps;

    app.post(
      '/index',
      {
        config: member,
        schema: {
          tags,
          description: "Your notifications, newest first. Filters: {key: 'unread', operator: 'equals', value: true}; {key: 'kind', operator: 'equals', value: 'form.submitted'}.",
          body: paginationBody,
          response: { 200: listEnvelope(notificationSchema) },
        },
      },
      async (request) => {
        const { limit, page: n, filters } = request.body;
        const unread = filters.some((f) => f.key === 'unread' && f.value === true);
        const kind = filters.find((f) => f.key === 'kind' && typeof f.value === 'string')?.value as string | undefined;
        const { tenant, userUuid } = companyActor(request);
        const { rows, total } = await notifications.list(tenant, userUuid, { unread, kind, limit, offset: pageOffset(n, limit) });
        return page(rows.map(toNotification), total, n, limit);
      },
    );

    app.get('/unread-count', { config: member, schema: { tags, response: { 200: envelope(z.object({ unread: z.number().int() })) } } }, async (request) => {
      const { tenant, userUuid } = companyActor(request);
      return ok({ unread: await notifications.unread(tenant, userUuid) });
    });

    app.post('/read-all', { config: member, schema: { tags, description: 'Marks your unread notifications read (up to 1,000 a call); answers how many, and how many are left unread.', response: { 200: envelope(z.object({ read: z.number().int(), unread: z.number().int() })) } } }, async (request) =>
      ok(await notifications.readAll(memberContext(request)), 'updated'),
    );

    app.get('/preferences', { config: member, schema: { tags, response: { 200: envelope(preferencesSchema) } } }, async (request) => {
      const { tenant, userUuid } = companyActor(request);
      return ok({ muted: await notifications.preferences(tenant, userUuid), kinds: [...notificationKinds] });
    });

    app.put('/preferences', { config: member, schema: { tags, description: 'Sets the kinds you do not receive (muted); the others you receive.', body: preferencesBodySchema, response: { 200: envelope(preferencesSchema) } } }, async (request) =>
      ok({ muted: await notifications.setPreferences(memberContext(request), request.body.muted), kinds: [...notificationKinds] }, 'updated'),
    );

    app.get(
      '/stream',
      {
        exposeHeadRoute: false,
        config: member,
        schema: {
          tags,
          description: streamDescription,
          querystring: z.object({ after: z.string().max(100).optional().describe('Resume after this id (as Last-Event-ID); now: new notifications only') }),
          headers: z.looseObject({ 'last-event-id': z.string().optional() }),
          response: { 200: { description: 'Server-Sent Events', content: { 'text/event-stream': { schema: z.string() } } } },
        },
      },
      async (request, reply) => {
        const { tenant, userUuid } = companyActor(request);
        const start = feedStart(request.headers['last-event-id'], request.query.after);
        await feeds.open(reply, { tenant, start, filter: { stream: [`${NOTIFICATION_STREAM_PREFIX}*`, `${INBOX_STREAM_PREFIX}${userUuid}`], dataUserUuid: userUuid } });
      },
    );

    app.get('/:uuid', { config: member, schema: { tags, params, response: { 200: envelope(notificationSchema) } } }, async (request) => {
      const { tenant, userUuid } = companyActor(request);
      return ok(toNotification(await notifications.found(tenant, userUuid, request.params.uuid)));
    });

    app.post('/:uuid/read', { config: member, schema: { tags, description: 'Marks one of your notifications read; repeating it changes nothing.', params, response: { 200: envelope(notificationSchema) } } }, async (request) =>
      ok(toNotification(await notifications.read(memberContext(request), request.params.uuid)), 'updated'),
    );
  };
