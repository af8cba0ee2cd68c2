import { randomUUID } from 'node:crypto';
import { notFound } from '../../aggregates/kernel/errors.js';
import { propertyDecider, type PropertyCommand } from '../../aggregates/property/property.decider.js';
import { propertyStream } from '../../aggregates/property/property.events.js';
import type { LinkedRelationFact } from '../../aggregates/property/property-rules.js';
import type { PropertyInput } from '../../aggregates/property/property.schemas.js';
import type { ListRequest } from '../../read-models/list-spec.js';
import { listProperties, propertyByName, propertyOf, type PropertyRow } from '../../read-models/properties.queries.js';
import { relationOf } from '../../read-models/relations.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import { existingObject, liveObject, nameTaken } from './schema-errors.js';

const propertyNameTaken = (name: string, objectUuid: string, holder: PropertyRow | null) =>
  nameTaken(
    'Property',
    name,
    holder?.deleted_at != null
      ? `Property "${name}" of this object is deleted: restore it with POST /api/v2/objects/${objectUuid}/properties/${holder.property_uuid}/restore, or choose another name`
      : 'Choose another name for the property',
  );

/** Properties of an object of the caller's company. */
export function makePropertiesService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  async function existing(tenant: string, objectUuid: string, propertyUuid: string): Promise<PropertyRow> {
    await existingObject(db, tenant, objectUuid);
    const row = await propertyOf(db, tenant, objectUuid, propertyUuid);
    if (!row) throw notFound('Property', propertyUuid);
    return row;
  }

  async function run(ctx: CommandContext, objectUuid: string, propertyUuid: string, command: PropertyCommand, name?: string) {
    await mapUniqueViolations(() => handleCommand({ store, decider: propertyDecider, streamId: propertyStream(propertyUuid), command, context: ctx }), {
      rm_properties_name_unique: async (err) => {
        throw name ? propertyNameTaken(name, objectUuid, await propertyByName(db, ctx.tenant, objectUuid, name)) : err;
      },
    });
    return (await propertyOf(db, ctx.tenant, objectUuid, propertyUuid))!;
  }

  async function linkedFact(tenant: string, objectUuid: string, relationUuid: string | null | undefined): Promise<LinkedRelationFact | null> {
    if (!relationUuid) return null;
    const relation = await relationOf(db, tenant, relationUuid);
    if (!relation) return null;
    return { relationUuid, deleted: relation.deleted_at !== null, touchesObject: relation.from_object_uuid === objectUuid || relation.to_object_uuid === objectUuid };
  }

  return {
    async create(ctx: CommandContext, objectUuid: string, input: PropertyInput): Promise<PropertyRow> {
      await liveObject(db, ctx.tenant, objectUuid);
      // The decider reports a malformed name with every other problem; only a well-formed one can be taken.
      const name = input.name.trim();
      const holder = await propertyByName(db, ctx.tenant, objectUuid, name);
      if (holder) throw propertyNameTaken(name, objectUuid, holder);
      const propertyUuid = randomUUID();
      const linkedRelation = await linkedFact(ctx.tenant, objectUuid, input.relationUuid);
      return run(ctx, objectUuid, propertyUuid, { type: 'CreateProperty', propertyUuid, objectUuid, input, linkedRelation }, name);
    },

    async list(tenant: string, objectUuid: string, request: ListRequest) {
      await existingObject(db, tenant, objectUuid);
      return listProperties(db, tenant, objectUuid, request);
    },

    get: existing,

    async update(ctx: CommandContext, objectUuid: string, propertyUuid: string, input: Partial<PropertyInput>): Promise<PropertyRow> {
      await existing(ctx.tenant, objectUuid, propertyUuid);
      return run(ctx, objectUuid, propertyUuid, { type: 'UpdateProperty', input });
    },

    async remove(ctx: CommandContext, objectUuid: string, propertyUuid: string): Promise<PropertyRow> {
      await existing(ctx.tenant, objectUuid, propertyUuid);
      return run(ctx, objectUuid, propertyUuid, { type: 'DeleteProperty' });
    },

    async restore(ctx: CommandContext, objectUuid: string, propertyUuid: string): Promise<PropertyRow> {
      await existing(ctx.tenant, objectUuid, propertyUuid);
      return run(ctx, objectUuid, propertyUuid, { type: 'RestoreProperty' });
    },
  };
}
export type PropertiesService = ReturnType<typeof makePropertiesService>;
