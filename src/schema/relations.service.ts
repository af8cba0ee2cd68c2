import { randomUUID } from 'node:crypto';
import { DomainError, invalid, notFound } from '../../aggregates/kernel/errors.js';
import { wrongState } from '../../aggregates/object/object.decider.js';
import { relationDecider, type RelationCommand } from '../../aggregates/relation/relation.decider.js';
import { relationStream } from '../../aggregates/relation/relation.events.js';
import type { RelationInput } from '../../aggregates/relation/relation.schemas.js';
import type { ListRequest } from '../../read-models/list-spec.js';
import { objectByUuid, type ObjectRow } from '../../read-models/objects.queries.js';
import { listRelations, relationByName, relationOf, relationsAmong, type RelationRow, type RelationScope } from '../../read-models/relations.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import { existingObject, liveObject } from './schema-errors.js';

/** A relation as one of its objects sees it (GET /relations/{relationUuid}/{objectUuid}). */
export interface RelationFromObject {
  relation: RelationRow;
  object: ObjectRow;
  other: ObjectRow;
  side: 'origin' | 'target';
}

/** Relations between objects of the caller's company. */
export function makeRelationsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  async function existing(tenant: string, relationUuid: string): Promise<RelationRow> {
    const row = await relationOf(db, tenant, relationUuid);
    if (!row) throw notFound('Relation', relationUuid);
    return row;
  }

  async function run(ctx: CommandContext, relationUuid: string, command: RelationCommand) {
    await handleCommand({ store, decider: relationDecider, streamId: relationStream(relationUuid), command, context: ctx });
    return relationOf(db, ctx.tenant, relationUuid);
  }

  async function update(ctx: CommandContext, current: RelationRow, input: RelationInput) {
    if (current.deleted_at !== null) {
      throw wrongState(
        `Relation "${current.name}" of this object is deleted`,
        `Restore it with POST /api/v2/relations/${current.relation_uuid}/restore, or delete it for good with DELETE /api/v2/relations/${current.relation_uuid}/permanent, then send the relation again`,
      );
    }
    return (await run(ctx, current.relation_uuid, { type: 'UpdateRelation', input }))!;
  }

  async function target(tenant: string, toObjectUuid: string) {
    const row = await objectByUuid(db, tenant, toObjectUuid);
    if (!row) throw invalid('body.toObjectUuid', `no object ${toObjectUuid} in the selected company`, 'List the objects with POST /api/v2/objects/index and use one of their uuids', 'INVALID_VALUE');
    if (row.deleted_at !== null) throw wrongState(`Object ${row.name} is deleted`, `Restore it first with POST /api/v2/objects/${toObjectUuid}/restore`);
  }

  return {
    /** Creates the relation `input.name` from the object, or updates it when the object has one by that name. */
    async upsert(ctx: CommandContext, objectUuid: string, input: RelationInput): Promise<{ relation: RelationRow; created: boolean }> {
      await liveObject(db, ctx.tenant, objectUuid);
      const name = input.name.trim();
      const current = await relationByName(db, ctx.tenant, objectUuid, name);
      if (current) return { relation: await update(ctx, current, input), created: false };
      await target(ctx.tenant, input.toObjectUuid);
      const relationUuid = randomUUID();
      return mapUniqueViolations<{ relation: RelationRow; created: boolean }>(async () => ({ relation: (await run(ctx, relationUuid, { type: 'CreateRelation', relationUuid, fromObjectUuid: objectUuid, input }))!, created: true }), {
        // Another request created it a moment ago: this one becomes an update of that relation.
        rm_relations_name_unique: async (err) => {
          const winner = await relationByName(db, ctx.tenant, objectUuid, name);
          if (!winner) throw err;
          return { relation: await update(ctx, winner, input), created: false };
        },
      });
    },

    async list(tenant: string, scope: RelationScope, request: ListRequest) {
      if (scope.kind === 'object') await existingObject(db, tenant, scope.objectUuid);
      if (scope.kind === 'between') {
        await existingObject(db, tenant, scope.fromObjectUuid);
        await existingObject(db, tenant, scope.toObjectUuid);
      }
      return listRelations(db, tenant, scope, request);
    },

    get: existing,

    async fromObject(tenant: string, relationUuid: string, objectUuid: string): Promise<RelationFromObject> {
      const object = await existingObject(db, tenant, objectUuid);
      const relation = await existing(tenant, relationUuid);
      const side = relation.from_object_uuid === objectUuid ? 'origin' : relation.to_object_uuid === objectUuid ? 'target' : null;
      if (!side) {
        throw new DomainError('NOT_FOUND', `Relation ${relationUuid} does not connect object ${objectUuid}`, [
          { message: `Object ${object.name} is neither the origin nor the target of relation ${relation.name}`, type: 'NOT_FOUND', correctionSuggestion: `Use object ${relation.from_object_uuid} or ${relation.to_object_uuid}` },
        ]);
      }
      const other = (await objectByUuid(db, tenant, side === 'origin' ? relation.to_object_uuid : relation.from_object_uuid))!;
      return { relation, object, other, side };
    },

    /** Sets the index of several relations; checks that every one exists before changing any. */
    async updateIndices(ctx: CommandContext, indices: Record<string, number>): Promise<RelationRow[]> {
      const uuids = Object.keys(indices);
      const found = new Set((await relationsAmong(db, ctx.tenant, uuids)).map((r) => r.relation_uuid));
      const missing = uuids.filter((u) => !found.has(u));
      if (missing.length > 0) {
        throw new DomainError('NOT_FOUND', `Relation${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not found`, missing.map((u) => ({
          message: `Relation ${u} does not exist in the selected company`,
          type: 'NOT_FOUND' as const,
          correctionSuggestion: 'List relations with POST /api/v2/relations/index and send only their uuids',
          field: `body.${u}`,
        })));
      }
      for (const [relationUuid, index] of Object.entries(indices)) await run(ctx, relationUuid, { type: 'ChangeRelationIndex', index });
      return relationsAmong(db, ctx.tenant, uuids);
    },

    async remove(ctx: CommandContext, relationUuid: string): Promise<RelationRow> {
      await existing(ctx.tenant, relationUuid);
      return (await run(ctx, relationUuid, { type: 'DeleteRelation' }))!;
    },

    async restore(ctx: CommandContext, relationUuid: string): Promise<RelationRow> {
      await existing(ctx.tenant, relationUuid);
      return (await run(ctx, relationUuid, { type: 'RestoreRelation' }))!;
    },

    async purge(ctx: CommandContext, relationUuid: string): Promise<void> {
      await existing(ctx.tenant, relationUuid);
      await run(ctx, relationUuid, { type: 'PurgeRelation' });
    },
  };
}
export type RelationsService = ReturnType<typeof makeRelationsService>;
