import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Db } from '../db/db.js';
import { envelope, ok } from '../http/envelope.js';
import type { Mailer } from '../mail/mailer.js';

export const MAX_STREAM_TEST_COUNT = 10_000;

const dbStatusSchema = z.object({
  status: z.enum(['ok', 'empty']),
  database: z.enum(['pglite', 'postgres']),
  events: z.number().int(),
  migrations: z.number().int(),
});

const keptMailSchema = z.object({ to: z.string(), subject: z.string(), text: z.string(), sentAt: z.number().int() });

/** Developer utilities of spec 4.11, for the DEVELOPER role. */
export const devRoutes = (deps: { db: Db; mailer: Mailer }): FastifyPluginAsyncZod =>
  async (app) => {
    const config = { auth: { roles: ['DEVELOPER'] as const } };

    app.get('/', { config, schema: { tags: ['dev'], response: { 200: envelope(z.string()) } } }, async () =>
      ok('Hello from the platform API v2: the service is reachable'),
    );

    app.get('/db-status', { config, schema: { tags: ['dev'], response: { 200: envelope(dbStatusSchema) } } }, async () => {
      const [row] = await deps.db.query<{ events: number; migrations: number }>(
        `select (select count(*) from events)::int8 as events, (select count(*) from schema_migrations)::int8 as migrations`,
      );
      const status = row!.migrations > 0 ? 'ok' : 'empty';
      return ok({ status, database: deps.db.kind, events: row!.events, migrations: row!.migrations }, status === 'ok' ? 'database reachable' : 'database reachable but not migrated');
    });

    app.get(
      '/mail',
      {
        config,
        schema: {
          tags: ['dev'],
          description: 'Mail kept when no SMTP_URL is set (newest first, at most 50), outside production only.',
          response: { 200: envelope(z.array(keptMailSchema)) },
        },
      },
      async () => {
        const kept = deps.mailer.outbox();
        return ok(kept ? [...kept] : [], kept ? 'kept mail' : 'no outbox: mail goes through SMTP, or this is production');
      },
    );

    app.post(
      '/stream-test',
      {
        config,
        schema: {
          tags: ['dev'],
          description: `Streams \`count\` Server-Sent Events (at most ${MAX_STREAM_TEST_COUNT}), each with its progress percentage, then ends.`,
          body: z.object({ count: z.number().int().min(1).max(MAX_STREAM_TEST_COUNT) }),
          response: { 200: z.string().describe('text/event-stream') },
        },
      },
      async (request, reply) => {
        const { count } = request.body;
        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
          'x-request-id': request.id,
        });
        let aborted = false;
        res.on('close', () => {
          aborted = true;
        });
        for (let i = 1; i <= count && !aborted; i++) {
          const progress = Math.round((i / count) * 10_000) / 100;
          const ok = res.write(`id: ${i}\nevent: progress\ndata: ${JSON.stringify({ index: i, count, progress })}\n\n`);
          if (!ok) await new Promise((resolve) => res.once('drain', resolve));
        }
        if (!aborted) res.end('event: end\ndata: {"done":true}\n\n');
      },
    );
  };
