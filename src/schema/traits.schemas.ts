import { z } from 'zod';
import { traitNameSchema } from '../../aggregates/trait/trait.schemas.js';
import { limitQueryField, pageQueryField } from '../../aggregates/kernel/paging.js';
import type { TraitRow } from '../../read-models/traits.queries.js';
import { actorFieldsOf, auditFields, auditFieldsWithout, type Actors } from '../http/audit-fields.js';

export const traitSchema = z
  .object({
    objectUuid: z.string(),
    traitName: traitNameSchema,
    details: z.record(z.string(), z.unknown()).describe('FlowTrait, TableTrait, PageTrait or UserTrait'),
    ...auditFieldsWithout('index', 'deletedAt'),
    deletedBy: auditFields.deletedBy.describe('Always null: a removed trait is not shown'),
  })
  .meta({ id: 'Trait' });

export const traitBodySchema = z
  .record(z.string(), z.unknown())
  .describe('The trait details, a JSON map: Flow {stageProperty, stages?}; Table {columns: [{property, width?}], defaultSort?: {property, direction}}; Page {titleProperty?, slugProperty?, pathPrefix?}; User {emailProperty?}. See the FlowTrait, TableTrait, PageTrait and UserTrait schemas.')
  .meta({ id: 'TraitDetails' });

/** Spec 8: page 0 (the first) by default; at most 100 a page (a larger limit is a 400). */
export const traitListQuerySchema = z.object({ page: pageQueryField, limit: limitQueryField });

export const toTrait = (row: TraitRow, actors: Actors): z.infer<typeof traitSchema> => ({
  objectUuid: row.object_uuid,
  traitName: row.trait,
  details: row.config,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...actorFieldsOf(row, actors),
  revision: row.revision,
});
