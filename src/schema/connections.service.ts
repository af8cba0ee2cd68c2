import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { wrongState } from '../../aggregates/object/object.decider.js';
import { recordLinkDecider, type EdgeValues } from '../../aggregates/relation/record-link.decider.js';
import { recordLinkStream } from '../../aggregates/relation/record-link.events.js';
import { cardinalityLimits } from '../../aggregates/relation/relation.schemas.js';
import { objectByUuid } from '../../read-models/objects.queries.js';
import { cardinalityClashes, linkOf, type RecordLinkRow } from '../../read-models/record-links.queries.js';
import { relationOf, type RelationRow } from '../../read-models/relations.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import type { RecordExists } from './record-port.js';

function cardinalityBroken(relation: RelationRow, from: string, to: string, clash?: RecordLinkRow) {
  const which = clash ? (clash.from_record === from ? `record ${from} is already connected to ${clash.to_record}` : `record ${to} is already connected from ${clash.from_record}`) : 'a record at one end is already connected';
  const path = clash ? `DELETE /api/v2/relations/${relation.relation_uuid}/connection/${clash.from_record}/${clash.to_record}` : `DELETE /api/v2/relations/${relation.relation_uuid}/connection/{from}/{to}`;
  return new DomainError('CONFLICT', `Relation ${relation.name} is ${relation.cardinality}: ${which}`, [
    { message: `The connection would break the cardinality ${relation.cardinality} of relation ${relation.name}: ${which}`, type: 'RELATION_NOT_ALLOWED', correctionSuggestion: `Remove the existing connection first with ${path}` },
  ]);
}

/** Connections of two records through a relation: one event stream per connection. */
export function makeConnectionsService(deps: { db: Db; store: EventStore; recordExists: RecordExists }) {
  const { db, store, recordExists } = deps;

  async function existingRelation(tenant: string, relationUuid: string) {
    const relation = await relationOf(db, tenant, relationUuid);
    if (!relation) throw notFound('Relation', relationUuid);
    return relation;
  }

  async function checkEnd(tenant: string, objectUuid: string, recordUuid: string) {
    const object = await objectByUuid(db, tenant, objectUuid);
    if (object?.deleted_at != null) throw wrongState(`Object ${object.name} is deleted`, `Restore it first with POST /api/v2/objects/${objectUuid}/restore`);
    if (!(await recordExists(tenant, objectUuid, recordUuid))) {
      throw new DomainError('NOT_FOUND', `Record ${recordUuid} not found`, [
        { message: `Record ${recordUuid} is not a record of object ${object?.name ?? objectUuid} in the selected company`, type: 'NOT_FOUND', correctionSuggestion: 'Connect records of the relation\'s origin object ({from}) to records of its target object ({to})' },
      ]);
    }
  }

  return {
    /** Connects `from` (a record of the origin object) to `to` (a record of the target object), or updates the edge properties. */
    async connect(ctx: CommandContext, relationUuid: string, from: string, to: string, edgeProperties: EdgeValues): Promise<RecordLinkRow> {
      const relation = await existingRelation(ctx.tenant, relationUuid);
      if (relation.deleted_at !== null) throw wrongState(`Relation ${relation.name} is deleted`, `Restore it with POST /api/v2/relations/${relationUuid}/restore before connecting records`);
      await checkEnd(ctx.tenant, relation.from_object_uuid, from);
      await checkEnd(ctx.tenant, relation.to_object_uuid, to);
      // Read first for a clear message; the unique indexes decide atomically when requests race.
      const [clash] = await cardinalityClashes(db, ctx.tenant, relationUuid, from, to, cardinalityLimits(relation.cardinality));
      if (clash) throw cardinalityBroken(relation, from, to, clash);
      const broken = async () => {
        const [now] = await cardinalityClashes(db, ctx.tenant, relationUuid, from, to, cardinalityLimits(relation.cardinality));
        throw cardinalityBroken(relation, from, to, now);
      };
      await mapUniqueViolations(
        () =>
          handleCommand({
            store,
            decider: recordLinkDecider,
            streamId: recordLinkStream(relationUuid, from, to),
            command: { type: 'ConnectRecords', relationUuid, fromRecordUuid: from, toRecordUuid: to, edgeProperties, edgeDefinitions: relation.edge_properties },
            context: ctx,
          }),
        { rm_record_links_one_per_from: broken, rm_record_links_one_per_to: broken },
      );
      return (await linkOf(db, ctx.tenant, relationUuid, from, to))!;
    },

    async disconnect(ctx: CommandContext, relationUuid: string, from: string, to: string): Promise<void> {
      await existingRelation(ctx.tenant, relationUuid);
      await handleCommand({
        store,
        decider: recordLinkDecider,
        streamId: recordLinkStream(relationUuid, from, to),
        command: { type: 'DisconnectRecords', relationUuid, fromRecordUuid: from, toRecordUuid: to },
        context: ctx,
      });
    },
  };
}
export type ConnectionsService = ReturnType<typeof makeConnectionsService>;
