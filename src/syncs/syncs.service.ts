import { randomUUID } from 'node:crypto';
import { notFound } from '../../aggregates/kernel/errors.js';
import { syncDecider, type SyncCommand, type SyncInput, type SyncSchemaFacts } from '../../aggregates/sync/sync.decider.js';
import { syncStream } from '../../aggregates/sync/sync.events.js';
import { relationOf } from '../../read-models/relations.queries.js';
import { loadObjectSchemaByUuid } from '../../read-models/schema.queries.js';
import { listSyncs, syncByUuid, type SyncRow } from '../../read-models/syncs.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';

/**
 * Syncs of the selected company. Writes take the command context first, reads the tenant first.
 * Another company's sync is the same 404 as a missing one.
 */
export function makeSyncsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  async function objectFacts(tenant: string, objectUuid: string | undefined) {
    if (!objectUuid) return null;
    const schema = await loadObjectSchemaByUuid(db, tenant, objectUuid);
    if (!schema) return null;
    return { uuid: schema.object.uuid, name: schema.object.name, properties: Object.fromEntries(schema.properties.map((p) => [p.name, p.type])) };
  }

  /** The schema facts the decider checks a sync against: the current ones, with the input's changes. */
  async function factsFor(tenant: string, input: SyncInput, base: SyncRow | null): Promise<SyncSchemaFacts> {
    const relationUuid = input.relationUuid ?? base?.relation_uuid;
    const relation = relationUuid ? await relationOf(db, tenant, relationUuid) : null;
    return {
      source: await objectFacts(tenant, input.sourceObjectUuid ?? base?.source_object_uuid),
      target: await objectFacts(tenant, input.targetObjectUuid ?? base?.target_object_uuid),
      relation: relation && relation.deleted_at === null ? { uuid: relation.relation_uuid, fromObjectUuid: relation.from_object_uuid, toObjectUuid: relation.to_object_uuid } : null,
    };
  }

  async function found(tenant: string, syncUuid: string, opts: { deleted?: boolean | 'either' } = {}): Promise<SyncRow> {
    const row = await syncByUuid(db, tenant, syncUuid);
    if (!row || (opts.deleted !== 'either' && (row.deleted_at !== null) !== (opts.deleted ?? false))) throw notFound('Sync', syncUuid);
    return row;
  }

  const run = (context: CommandContext, syncUuid: string, command: SyncCommand) =>
    handleCommand({ store, decider: syncDecider, streamId: syncStream(syncUuid), command, context });

  return {
    found: (tenant: string, syncUuid: string) => found(tenant, syncUuid),

    async create(context: CommandContext, input: SyncInput): Promise<SyncRow> {
      const syncUuid = randomUUID();
      await run(context, syncUuid, { type: 'CreateSync', syncUuid, input, facts: await factsFor(context.tenant, input, null) });
      return found(context.tenant, syncUuid);
    },

    list: (tenant: string, o: { deleted: boolean; query?: string; limit: number; offset: number }) => listSyncs(db, tenant, o),

    async update(context: CommandContext, syncUuid: string, input: SyncInput): Promise<SyncRow> {
      const base = await found(context.tenant, syncUuid);
      await run(context, syncUuid, { type: 'UpdateSync', input, facts: await factsFor(context.tenant, input, base) });
      return found(context.tenant, syncUuid);
    },

    async remove(context: CommandContext, syncUuid: string) {
      await found(context.tenant, syncUuid);
      await run(context, syncUuid, { type: 'DeleteSync' });
    },

    async restore(context: CommandContext, syncUuid: string): Promise<SyncRow> {
      // A live sync is the decider's 409 (STATE_NOT_ALLOWED), as for records, forms and views.
      await found(context.tenant, syncUuid, { deleted: 'either' });
      await run(context, syncUuid, { type: 'RestoreSync' });
      return found(context.tenant, syncUuid);
    },
  };
}
export type SyncsService = ReturnType<typeof makeSyncsService>;
