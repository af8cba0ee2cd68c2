import { z } from 'zod';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';
import type { SyncRow } from '../../read-models/syncs.queries.js';

const mapping = z.object({ source: z.string().min(1).max(200).describe('Property of the source object'), target: z.string().min(1).max(200).describe('Property of the target object') }).strict();

const fields = {
  name: z.string().min(1).max(200).optional(),
  label: z.string().min(1).max(200).optional(),
  sourceObjectUuid: z.uuid().describe('The object whose records are copied from'),
  targetObjectUuid: z.uuid().describe('The object whose related records are written to'),
  relationUuid: z.uuid().describe('The relation connecting source records to their target records (either direction)'),
  mappings: z.array(mapping).min(1).max(50),
  enabled: z.boolean().optional().describe('Default true'),
};

export const createSyncBodySchema = z.object(fields).strict().meta({ id: 'SyncCreate' });
export const updateSyncBodySchema = z
  .object({ ...fields, sourceObjectUuid: fields.sourceObjectUuid.optional(), targetObjectUuid: fields.targetObjectUuid.optional(), relationUuid: fields.relationUuid.optional(), mappings: fields.mappings.optional() })
  .strict()
  .meta({ id: 'SyncUpdate' });

export const syncSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    label: z.string(),
    sourceObjectUuid: z.string(),
    sourceObjectName: z.string(),
    targetObjectUuid: z.string(),
    targetObjectName: z.string(),
    relationUuid: z.string(),
    mappings: z.array(z.object({ source: z.string(), target: z.string() })),
    enabled: z.boolean(),
    ...auditFields,
  })
  .meta({ id: 'Sync' });

export const toSync = (row: SyncRow, actors: Actors): z.infer<typeof syncSchema> => ({
  uuid: row.sync_uuid,
  name: row.name,
  label: row.label,
  sourceObjectUuid: row.source_object_uuid,
  sourceObjectName: row.source_object_name,
  targetObjectUuid: row.target_object_uuid,
  targetObjectName: row.target_object_name,
  relationUuid: row.relation_uuid,
  mappings: row.mappings,
  enabled: row.enabled,
  ...auditFieldsOf(row, actors),
});
