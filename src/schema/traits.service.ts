import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import type { PropertyFact } from '../../aggregates/trait/trait-config.js';
import { traitDecider, type TraitCommand } from '../../aggregates/trait/trait.decider.js';
import { traitStream } from '../../aggregates/trait/trait.events.js';
import type { TraitName } from '../../aggregates/trait/trait.schemas.js';
import { objectByUuid } from '../../read-models/objects.queries.js';
import { livePropertiesOf } from '../../read-models/properties.queries.js';
import { traitOf, traitsOf, userTraitObject, type TraitRow } from '../../read-models/traits.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import { existingObject, liveObject } from './schema-errors.js';

async function userTraitTaken(db: Db, tenant: string) {
  const holder = await userTraitObject(db, tenant);
  const name = holder ? (await objectByUuid(db, tenant, holder))?.name : undefined;
  return new DomainError('CONFLICT', `Object ${name ?? holder ?? 'another object'} already has the User trait`, [
    { message: 'Only one object of a company holds the User trait: its records are the user profiles', type: 'GENERAL', correctionSuggestion: `Remove it first with DELETE /api/v2/traits/${holder ?? '{objectUuid}'}/User` },
  ]);
}

/** Traits of objects of the caller's company (Flow, Table, Page, User). */
export function makeTraitsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  const run = (ctx: CommandContext, objectUuid: string, trait: TraitName, command: TraitCommand) =>
    handleCommand({ store, decider: traitDecider, streamId: traitStream(objectUuid, trait), command, context: ctx });

  return {
    /** Creates or replaces the trait's details; `created` tells which. */
    async configure(ctx: CommandContext, objectUuid: string, trait: TraitName, config: unknown): Promise<{ trait: TraitRow; created: boolean }> {
      await liveObject(db, ctx.tenant, objectUuid);
      const before = await traitOf(db, ctx.tenant, objectUuid, trait);
      if (trait === 'User' && !before && (await userTraitObject(db, ctx.tenant))) throw await userTraitTaken(db, ctx.tenant);
      const properties: PropertyFact[] = (await livePropertiesOf(db, ctx.tenant, objectUuid)).map((p) => ({ name: p.name, type: p.type, format: p.format, options: p.options }));
      await mapUniqueViolations(() => run(ctx, objectUuid, trait, { type: 'ConfigureTrait', objectUuid, trait, config, properties }), {
        rm_traits_one_user_object: async () => {
          throw await userTraitTaken(db, ctx.tenant);
        },
      });
      return { trait: (await traitOf(db, ctx.tenant, objectUuid, trait))!, created: !before };
    },

    async get(tenant: string, objectUuid: string, trait: TraitName): Promise<TraitRow> {
      await existingObject(db, tenant, objectUuid);
      const row = await traitOf(db, tenant, objectUuid, trait);
      if (!row) throw notFound('Trait', `${trait} of object ${objectUuid}`);
      return row;
    },

    async remove(ctx: CommandContext, objectUuid: string, trait: TraitName): Promise<void> {
      await existingObject(db, ctx.tenant, objectUuid);
      await run(ctx, objectUuid, trait, { type: 'RemoveTrait', objectUuid, trait });
    },

    async list(tenant: string, objectUuid: string, limit: number, offset: number) {
      await existingObject(db, tenant, objectUuid);
      return traitsOf(db, tenant, objectUuid, limit, offset);
    },
  };
}
export type TraitsService = ReturnType<typeof makeTraitsService>;
