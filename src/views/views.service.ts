import { randomUUID } from 'node:crypto';
import { notFound } from '../../aggregates/kernel/errors.js';
import { viewDecider, type ViewActor, type ViewCommand, type ViewFacts, type ViewInput } from '../../aggregates/view/view.decider.js';
import { viewStream } from '../../aggregates/view/view.events.js';
import { loadRecordObjects } from '../../read-models/records.queries.js';
import { teamOf } from '../../read-models/teams.queries.js';
import { viewByUuid, viewFor, viewsOfObject, type ViewReader, type ViewRow } from '../../read-models/views.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { catalogOf, relationCatalog } from '../records/records.reads.js';

/** The caller of a view operation: its command context, and whether it may share (views:share, every ADMIN). */
export interface ViewCaller {
  ctx: CommandContext;
  canShare: boolean;
}

const readerOf = (caller: ViewCaller): ViewReader => ({ userUuid: caller.ctx.userUuid ?? '', canShare: caller.canShare });
const actorOf = (caller: ViewCaller): ViewActor => ({ userUuid: caller.ctx.userUuid, canShare: caller.canShare });

/**
 * Views of the selected company's objects. A view another member may not see (a personal view, a
 * team's view outside the team) is the same 404 as another company's or a missing one.
 */
export function makeViewsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  /** The object with the records' filter catalog (its fields and those of related objects), or null. */
  async function objectFacts(tenant: string, objectUuid: string | undefined): Promise<ViewFacts['object']> {
    if (!objectUuid) return null;
    const [object] = await loadRecordObjects(db, tenant, [objectUuid]);
    if (!object) return null;
    const rel = await relationCatalog(db, tenant, object.objectUuid);
    return {
      uuid: object.objectUuid,
      name: object.name,
      catalog: { properties: catalogOf([object]), relations: rel.relations },
      selects: object.properties.filter((p) => p.format === 'select').map((p) => p.name),
    };
  }

  async function factsFor(tenant: string, input: ViewInput, base: ViewRow | null): Promise<ViewFacts> {
    const teamUuid = input.teamUuid ?? base?.team_uuid;
    return {
      object: await objectFacts(tenant, base?.object_uuid ?? input.objectUuid),
      team: teamUuid && (await teamOf(db, tenant, teamUuid)) ? { uuid: teamUuid } : null,
    };
  }

  /** The view the reader sees, live (or deleted with `deleted: true`; either with `deleted: 'either'`), else 404. */
  async function found(tenant: string, reader: ViewReader, viewUuid: string, opts: { deleted?: boolean | 'either' } = {}): Promise<ViewRow> {
    const row = await viewFor(db, tenant, reader, viewUuid);
    if (!row || (opts.deleted !== 'either' && (row.deleted_at !== null) !== (opts.deleted ?? false))) throw notFound('View', viewUuid);
    return row;
  }

  /** The row a write left (the writer may no longer see it: an ADMIN who made a shared view personal again). */
  async function written(tenant: string, viewUuid: string): Promise<ViewRow> {
    const row = await viewByUuid(db, tenant, viewUuid);
    if (!row) throw notFound('View', viewUuid);
    return row;
  }

  const run = (context: CommandContext, viewUuid: string, command: ViewCommand) =>
    handleCommand({ store, decider: viewDecider, streamId: viewStream(viewUuid), command, context });

  return {
    found: (tenant: string, reader: ViewReader, viewUuid: string) => found(tenant, reader, viewUuid),

    async create(caller: ViewCaller, input: ViewInput): Promise<ViewRow> {
      const viewUuid = randomUUID();
      await run(caller.ctx, viewUuid, { type: 'CreateView', viewUuid, input, facts: await factsFor(caller.ctx.tenant, input, null), actor: actorOf(caller) });
      return written(caller.ctx.tenant, viewUuid);
    },

    /** The views of a live object of the tenant that the reader sees (404 for an unknown object). */
    async list(tenant: string, reader: ViewReader, objectUuid: string, o: { deleted: boolean; query?: string; limit: number; offset: number }) {
      const [object] = await loadRecordObjects(db, tenant, [objectUuid]);
      if (!object) throw notFound('Object', objectUuid);
      return viewsOfObject(db, tenant, reader, objectUuid, o);
    },

    async update(caller: ViewCaller, viewUuid: string, input: ViewInput): Promise<ViewRow> {
      const base = await found(caller.ctx.tenant, readerOf(caller), viewUuid);
      await run(caller.ctx, viewUuid, { type: 'UpdateView', input, facts: await factsFor(caller.ctx.tenant, input, base), actor: actorOf(caller) });
      return written(caller.ctx.tenant, viewUuid);
    },

    async remove(caller: ViewCaller, viewUuid: string) {
      await found(caller.ctx.tenant, readerOf(caller), viewUuid);
      await run(caller.ctx, viewUuid, { type: 'DeleteView', actor: actorOf(caller) });
    },

    async restore(caller: ViewCaller, viewUuid: string): Promise<ViewRow> {
      // A live view is the decider's 409 (STATE_NOT_ALLOWED), as for records and saved filters.
      await found(caller.ctx.tenant, readerOf(caller), viewUuid, { deleted: 'either' });
      await run(caller.ctx, viewUuid, { type: 'RestoreView', actor: actorOf(caller) });
      return written(caller.ctx.tenant, viewUuid);
    },
  };
}
export type ViewsService = ReturnType<typeof makeViewsService>;
