import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { notFound } from '../../aggregates/kernel/errors.js';
import { sandboxDecider, type SandboxCommand } from '../../aggregates/sandbox/sandbox.decider.js';
import { sandboxStream } from '../../aggregates/sandbox/sandbox.events.js';
import { webhookDecider } from '../../aggregates/webhook/webhook.decider.js';
import { webhookStream } from '../../aggregates/webhook/webhook.events.js';
import type { Projection } from '../../projections/projection.js';
import { listSandboxes, sandboxByUuid, type SandboxRow } from '../../read-models/sandboxes.queries.js';
import { liveWebhooks } from '../../read-models/webhooks.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { copyPlanned, dropPlan, planCopy, resolveBound } from './log-copy.js';
import { parseSandboxAsOf } from './sandboxes.schemas.js';

export interface SandboxesDeps {
  db: Db;
  store: EventStore;
  projections: readonly Projection[];
  log: FastifyBaseLogger;
  /** Events per page of a clone (each page one transaction). */
  pageSize?: number;
}

/** Progress is told at most this often (in percentage points) while a clone runs. */
const PROGRESS_STEP = 5;

/**
 * Developer sandboxes (spec 1.17, 4.13): a sandbox is a tenant of its own, named by its uuid,
 * whose log starts as a copy of the company's (docs/sandboxes.md). Writes take the company's
 * context first; reads the company's tenant first.
 */
export function makeSandboxesService(deps: SandboxesDeps) {
  const { db, store, projections } = deps;
  const running = new Map<string, Promise<void>>();
  let closing = false;

  const run = (ctx: CommandContext, sandboxUuid: string, command: SandboxCommand) =>
    handleCommand({ store, decider: sandboxDecider, streamId: sandboxStream(sandboxUuid), command, context: { ...ctx, now: Date.now() } });

  async function found(tenant: string, sandboxUuid: string): Promise<SandboxRow> {
    const row = await sandboxByUuid(db, tenant, sandboxUuid);
    if (!row || row.deleted_at !== null) throw notFound('Sandbox', sandboxUuid);
    return row;
  }

  /** The copied webhooks are production's subscriptions: deleted in the sandbox (restorable there, on purpose). */
  async function switchOffCopiedWebhooks(sandboxUuid: string, ctx: CommandContext) {
    for (const webhook of await liveWebhooks(db, sandboxUuid)) {
      await handleCommand({ store, decider: webhookDecider, streamId: webhookStream(webhook.webhook_uuid), command: { type: 'DeleteWebhook' }, context: { ...ctx, tenant: sandboxUuid, now: Date.now() } });
    }
  }

  async function clone(ctx: CommandContext, row: SandboxRow) {
    const sandboxUuid = row.sandbox_uuid;
    try {
      const total = await planCopy(db, sandboxUuid, { fromTenant: row.tenant, upToPosition: row.up_to_position, asOfTime: row.as_of_time });
      let told = 0;
      const done = await copyPlanned(db, projections, {
        cloneUuid: sandboxUuid,
        toTenant: sandboxUuid,
        total,
        pageSize: deps.pageSize,
        stopped: () => closing,
        onPage: async ({ copied }) => {
          const pct = Math.floor((copied * 100) / Math.max(total, row.total, 1));
          if (pct - told >= PROGRESS_STEP && copied < total) {
            told = pct;
            await run(ctx, sandboxUuid, { type: 'RecordCloneProgress', copied });
          }
        },
      });
      if (closing) return;
      await switchOffCopiedWebhooks(sandboxUuid, ctx);
      const [last] = await db.query<{ p: number | null }>('select max(position)::int8 as p from events where tenant = $1', [sandboxUuid]);
      await run(ctx, sandboxUuid, { type: 'FinishClone', copied: done.copied, lastPosition: last?.p ?? 0 });
      await dropPlan(db, sandboxUuid);
    } catch (err) {
      deps.log.error({ err, sandboxUuid }, 'sandbox clone failed');
      await run(ctx, sandboxUuid, { type: 'FailClone', reason: 'The clone stopped on an internal error; delete this sandbox and ask for a new one' }).catch(() => undefined);
      await dropPlan(db, sandboxUuid).catch(() => undefined);
    }
  }

  return {
    found,

    list: (tenant: string, o: { limit: number; offset: number }) => listSandboxes(db, tenant, o),

    /** Asks for a sandbox of the company (ctx.tenant) as of `asOf`; the clone runs in the background. */
    async create(ctx: CommandContext, input: { name: string; asOf?: string }): Promise<SandboxRow> {
      const asOf = parseSandboxAsOf(input.asOf);
      const sandboxUuid = randomUUID();
      const bound = await resolveBound(db, ctx.tenant, asOf);
      await run(ctx, sandboxUuid, { type: 'RequestSandbox', sandboxUuid, name: input.name, asOf, upToPosition: bound.upToPosition, total: bound.total });
      const row = await found(ctx.tenant, sandboxUuid);
      const job = clone(ctx, row).finally(() => running.delete(sandboxUuid));
      running.set(sandboxUuid, job);
      return row;
    },

    async update(ctx: CommandContext, sandboxUuid: string, input: { reactorsEnabled: boolean }) {
      await found(ctx.tenant, sandboxUuid);
      await run(ctx, sandboxUuid, { type: 'SetSandboxReactors', enabled: input.reactorsEnabled });
      return found(ctx.tenant, sandboxUuid);
    },

    async remove(ctx: CommandContext, sandboxUuid: string) {
      await found(ctx.tenant, sandboxUuid);
      await run(ctx, sandboxUuid, { type: 'DeleteSandbox' });
    },

    /** Resolves once every clone this process runs has finished (tests, shutdown). */
    async settled() {
      await Promise.all([...running.values()]);
    },

    /** Stops the clones between two pages; an unfinished clone stays `cloning` (docs/sandboxes.md). */
    async close() {
      closing = true;
      await Promise.all([...running.values()]);
    },
  };
}
export type SandboxesService = ReturnType<typeof makeSandboxesService>;
