import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { duePages } from '../../read-models/pages.queries.js';
import type { Db } from '../db/db.js';
import type { PagesService } from './pages.service.js';
import { seconds } from './pages.service.js';

export interface PageScheduler {
  stop(): Promise<void>;
}

/**
 * Fires scheduled publish and unpublish transitions. Time, not an event, makes a transition due,
 * so instead of following the log this reactor polls its outbox: the `publish_at` and
 * `unpublish_at` columns of `rm_pages` (partial indexes, written in the scheduling append's
 * transaction). Each due page gets a `FireSchedule` command; the decider emits a transition only
 * while it is still pending in the stream, so two instances, a retry or a restart never fire one
 * twice, and a transition that fell due while the server was down fires at the first poll.
 * Events carry the scheduling request's requestId as their correlationId.
 */
export function startPageScheduler(opts: { db: Db; pages: PagesService; log: FastifyBaseLogger; intervalMs: number }): PageScheduler {
  const log = opts.log.child({ reactor: 'page-scheduler' });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  async function tick() {
    const due = await duePages(opts.db, seconds(Date.now()), 100);
    for (const d of due) {
      if (stopped) return;
      try {
        await opts.pages.run(d.tenant, d.page_uuid, { type: 'FireSchedule', now: seconds(Date.now()) }, {
          tenant: d.tenant,
          userUuid: null,
          requestId: `schedule-${randomUUID()}`,
          correlationId: d.schedule_request ?? undefined,
          now: Date.now(),
        });
      } catch (err) {
        log.error({ err, tenant: d.tenant, pageUuid: d.page_uuid }, 'a scheduled page transition failed; it is tried again at the next poll');
      }
    }
  }

  const done = (async () => {
    while (!stopped) {
      try {
        await tick();
      } catch (err) {
        if (!stopped) log.error({ err }, 'page scheduler poll failed');
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, opts.intervalMs);
        timer.unref();
      });
    }
  })();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await done;
    },
  };
}
