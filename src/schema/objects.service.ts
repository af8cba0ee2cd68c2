import { randomUUID } from 'node:crypto';
import { objectDecider, type ObjectCommand, type ObjectFields } from '../../aggregates/object/object.decider.js';
import { objectStream } from '../../aggregates/object/object.events.js';
import { checkObjectName } from '../../aggregates/object/names.js';
import type { ListRequest } from '../../read-models/list-spec.js';
import { listObjects, objectByName, objectByUuid, type ObjectRow } from '../../read-models/objects.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import { existingObject, nameTaken } from './schema-errors.js';

const objectNameTaken = (name: string, holder: ObjectRow | null) =>
  nameTaken(
    'Object',
    name,
    holder?.deleted_at != null ? `Object "${name}" is deleted: restore it with POST /api/v2/objects/${holder.object_uuid}/restore, or choose another name` : 'Choose another name',
  );

/** Objects of the caller's company: the schema of its domain. */
export function makeObjectsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  async function run(ctx: CommandContext, objectUuid: string, command: ObjectCommand, name?: string) {
    await mapUniqueViolations(() => handleCommand({ store, decider: objectDecider, streamId: objectStream(objectUuid), command, context: ctx }), {
      rm_objects_name_unique: async (err) => {
        throw name ? objectNameTaken(name, await objectByName(db, ctx.tenant, name)) : err;
      },
    });
    return (await objectByUuid(db, ctx.tenant, objectUuid))!;
  }

  return {
    async create(ctx: CommandContext, input: { name: string; label: string } & ObjectFields): Promise<ObjectRow> {
      const name = checkObjectName(input.name);
      const holder = await objectByName(db, ctx.tenant, name);
      if (holder) throw objectNameTaken(name, holder);
      const objectUuid = randomUUID();
      return run(ctx, objectUuid, { type: 'CreateObject', objectUuid, ...input, name }, name);
    },

    list: (tenant: string, request: ListRequest) => listObjects(db, tenant, request),

    get: (tenant: string, objectUuid: string) => existingObject(db, tenant, objectUuid),

    async update(ctx: CommandContext, objectUuid: string, input: { name?: string } & ObjectFields): Promise<ObjectRow> {
      await existingObject(db, ctx.tenant, objectUuid);
      return run(ctx, objectUuid, { type: 'UpdateObject', ...input });
    },

    async remove(ctx: CommandContext, objectUuid: string): Promise<ObjectRow> {
      await existingObject(db, ctx.tenant, objectUuid);
      return run(ctx, objectUuid, { type: 'DeleteObject' });
    },

    async restore(ctx: CommandContext, objectUuid: string): Promise<ObjectRow> {
      await existingObject(db, ctx.tenant, objectUuid);
      return run(ctx, objectUuid, { type: 'RestoreObject' });
    },
  };
}
export type ObjectsService = ReturnType<typeof makeObjectsService>;
