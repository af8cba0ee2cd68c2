import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { companyActor } from '../auth/actor.js';
import { errorBodySchema } from '../http/error-body.js';
import type { EventFeeds } from './event-feed.js';
import { feedFilter, feedQuerySchema, feedStart } from './events.schemas.js';

const errors = Object.fromEntries([400, 401, 403].map((c) => [c, errorBodySchema]));

const description = `The selected company's events, live, as Server-Sent Events in the log's order: \`id:\` the event's place in the log
(\`<transaction>:<position>\`), \`event:\` its type, \`data:\` the event as POST events/index shows it (LoggedEvent). Reconnect with
\`Last-Event-ID\` (or \`?after=\`) set to the last id received: the stream goes on with nothing lost and nothing twice. \`after=now\`: new
events only. A comment line \`: heartbeat\` comes every 15 s. A client that leaves what the server holds for it (1 MiB) unread for 30 s gets a
last \`event: cut\` (EventFeedCut: reason, resumeAfter) and the response ends; so does every stream after 15 minutes and when the server
stops. Details: docs/events.md, "The live feed".`;

/** The live feed (GET events/stream); the route only checks and hands the response to the feed. */
export const eventsRoutes = (deps: { feeds: EventFeeds }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/stream',
      {
        // A HEAD would open a feed whose body nobody reads.
        exposeHeadRoute: false,
        config: { auth: { roles: ['ADMIN'] } },
        schema: {
          tags: ['events'],
          description,
          querystring: feedQuerySchema,
          headers: z.looseObject({ 'last-event-id': z.string().optional().describe('The id of the last event received: the stream resumes after it') }),
          response: {
            200: {
              description: 'Server-Sent Events: `id:`, `event:` and `data:` (LoggedEvent) per event; `event: cut` (EventFeedCut) last when the server ends the stream',
              content: { 'text/event-stream': { schema: z.string() } },
            },
            ...errors,
          },
        },
      },
      async (request, reply) => {
        const { tenant } = companyActor(request);
        const filter = feedFilter(request.query);
        const start = feedStart(request.headers['last-event-id'], request.query.after);
        await deps.feeds.open(reply, { tenant, start, filter });
      },
    );
  };
