import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { dataCopyDecider, type DataCopyCommand, type DataCopyState } from '../../aggregates/data-copy/data-copy.decider.js';
import { dataCopyStream, type UuidPair } from '../../aggregates/data-copy/data-copy.events.js';
import { ENVIRONMENTS_STREAM_PREFIX } from '../../aggregates/environment/environment.events.js';
import { FORM_STREAM_PREFIX, FORM_SUBMISSION_STREAM_PREFIX } from '../../aggregates/form/form.events.js';
import { MODULE_STREAM_PREFIX } from '../../aggregates/module/module.events.js';
import { OBJECT_STREAM_PREFIX } from '../../aggregates/object/object.events.js';
import { TRANSLATION_STREAM_PREFIX } from '../../aggregates/page/page-translation.events.js';
import { PAGE_STREAM_PREFIX } from '../../aggregates/page/page.events.js';
import { PROPERTY_STREAM_PREFIX } from '../../aggregates/property/property.events.js';
import { RECORD_STREAM_PREFIX } from '../../aggregates/record/record.events.js';
import { RECORD_LINK_STREAM_PREFIX } from '../../aggregates/relation/record-link.events.js';
import { RELATION_STREAM_PREFIX } from '../../aggregates/relation/relation.events.js';
import { TRAIT_STREAM_PREFIX } from '../../aggregates/trait/trait.events.js';
import { WEB_MENU_STREAM_PREFIX } from '../../aggregates/web-menu/web-menu.events.js';
import type { Projection } from '../../projections/projection.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventRow } from '../event-store/postgres.rows.js';
import type { EventStore } from '../event-store/port.js';
import { copyPlanned, dropPlan, planCopy, resolveBound } from './log-copy.js';
import { parseSandboxAsOf } from './sandboxes.schemas.js';

/**
 * What a partner copy carries (spec 1.16): the schema (objects, properties, relations, traits),
 * records and their links, forms, pages (and translations), environments, menus and modules.
 * Not: form submissions (visitors' data), files, webhooks, syncs, views, saved filters, apps.
 */
const COPIED = [OBJECT_STREAM_PREFIX, PROPERTY_STREAM_PREFIX, RELATION_STREAM_PREFIX, TRAIT_STREAM_PREFIX, RECORD_STREAM_PREFIX, RECORD_LINK_STREAM_PREFIX, FORM_STREAM_PREFIX, PAGE_STREAM_PREFIX, ENVIRONMENTS_STREAM_PREFIX, MODULE_STREAM_PREFIX, WEB_MENU_STREAM_PREFIX];
/** Streams named by one uuid: that uuid is an entity of the source, and gets a new one in the copy. */
const NAMED_BY_UUID = [TRANSLATION_STREAM_PREFIX, OBJECT_STREAM_PREFIX, PROPERTY_STREAM_PREFIX, RELATION_STREAM_PREFIX, RECORD_STREAM_PREFIX, FORM_STREAM_PREFIX, PAGE_STREAM_PREFIX, MODULE_STREAM_PREFIX, WEB_MENU_STREAM_PREFIX];
const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ONE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The kind of each entity uuid of the source (object, record, ...), from its streams' names. */
async function entitiesOf(db: Db, tenant: string): Promise<Map<string, string>> {
  const kinds = new Map<string, string>();
  const rows = await db.queryRows(`select stream_id from streams where tenant = $1 and stream_id like any($2::text[])`, [tenant, NAMED_BY_UUID.map((p) => `${p}%`)]);
  for (const [streamId] of rows as [string][]) {
    const prefix = NAMED_BY_UUID.find((p) => streamId.startsWith(p) && ONE_UUID.test(streamId.slice(p.length)));
    if (prefix) kinds.set(streamId.slice(prefix.length), prefix.slice(0, -1));
  }
  return kinds;
}

/** A uuid map applied to a page of events: every string (and key) that is a source entity's uuid becomes the copy's. */
function remapper(kinds: Map<string, string>) {
  const map = new Map<string, string>();
  let fresh: UuidPair[] = [];
  const to = (u: string) => {
    let v = map.get(u);
    if (!v) {
      v = randomUUID();
      map.set(u, v);
      fresh.push({ source: u, copy: v, kind: kinds.get(u)! });
    }
    return v;
  };
  const inText = (s: string) => (s.length >= 36 ? s.replace(UUIDS, (u) => (kinds.has(u) ? to(u) : u)) : s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.length === 36 && kinds.has(v) ? to(v) : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.length === 36 && kinds.has(k) ? to(k) : k, walk(x)]));
    return v;
  };
  return {
    page: (events: EventRow[]) => events.filter((e) => !e.stream_id.startsWith(FORM_SUBMISSION_STREAM_PREFIX)).map((e) => ({ ...e, stream_id: inText(e.stream_id), data: walk(e.data) })),
    /** The pairs made since the last call. */
    drain: () => {
      const out = fresh;
      fresh = [];
      return out;
    },
  };
}

/**
 * Partner copies with the data (spec 1.16): the source's events of the copied kinds, replayed into
 * the new company as new events with new uuids (the log's engine of the sandboxes, with a uuid map),
 * in pages in the background; the mapping and the progress are events of the copy.
 */
export function makeCompanyDataCopies(deps: { db: Db; store: EventStore; projections: readonly Projection[]; log: FastifyBaseLogger; pageSize?: number }) {
  const { db, store, projections } = deps;
  const running = new Map<string, Promise<void>>();
  let closing = false;

  async function copy(ctx: CommandContext, sourceTenant: string, bound: { upToPosition: number; asOfTime: number | null }, head: { state: DataCopyState; revision: number }) {
    const run = async (command: DataCopyCommand) => {
      const done = await handleCommand({ store, decider: dataCopyDecider, streamId: dataCopyStream(ctx.tenant), command, context: { ...ctx, now: Date.now() }, snapshot: async (attempt) => (attempt === 0 ? head : null) });
      head = { state: done.state, revision: done.revision };
    };
    const cloneUuid = randomUUID();
    try {
      const total = await planCopy(db, cloneUuid, { fromTenant: sourceTenant, ...bound, only: COPIED });
      const remap = remapper(await entitiesOf(db, sourceTenant));
      const done = await copyPlanned(db, projections, {
        cloneUuid,
        toTenant: ctx.tenant,
        total,
        pageSize: deps.pageSize,
        stopped: () => closing,
        map: remap.page,
        onPage: async ({ copied }) => run({ type: 'MapCopiedUuids', pairs: remap.drain(), copied }),
      });
      if (!closing) await run({ type: 'FinishDataCopy', copied: done.copied });
    } catch (err) {
      deps.log.error({ err, copy: ctx.tenant }, 'company data copy failed');
      await run({ type: 'FailDataCopy', reason: 'The copy stopped on an internal error; copy the source again into a new company' }).catch(() => undefined);
    } finally {
      await dropPlan(db, cloneUuid).catch(() => undefined);
    }
  }

  return {
    /** `asOf` of a request (an ISO time or a log position), checked before anything is written. */
    parseAsOf: parseSandboxAsOf,

    /** Starts copying `sourceTenant`'s data into the new company `ctx.tenant`, as of `asOf`; runs in the background. */
    async start(ctx: CommandContext, sourceTenant: string, asOf: { position: number | null; time: number | null }) {
      const bound = await resolveBound(db, sourceTenant, asOf, COPIED);
      const started = await handleCommand({ store, decider: dataCopyDecider, streamId: dataCopyStream(ctx.tenant), command: { type: 'StartDataCopy', sourceCompanyUuid: sourceTenant, asOf, upToPosition: bound.upToPosition, total: bound.total }, context: ctx });
      const job = copy(ctx, sourceTenant, { upToPosition: bound.upToPosition, asOfTime: asOf.time }, { state: started.state, revision: started.revision }).finally(() => running.delete(ctx.tenant));
      running.set(ctx.tenant, job);
    },
    async settled() {
      await Promise.all([...running.values()]);
    },
    async close() {
      closing = true;
      await Promise.all([...running.values()]);
    },
  };
}
export type CompanyDataCopies = ReturnType<typeof makeCompanyDataCopies>;
