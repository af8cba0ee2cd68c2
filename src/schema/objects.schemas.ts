import { z } from 'zod';
import type { ObjectRow } from '../../read-models/objects.queries.js';
import { auditFields, auditFieldsWithout, deletableAuditOf, type Actors } from '../http/audit-fields.js';

export const objectSchema = z
  .object({
    uuid: z.string(),
    name: z.string().describe('Lowercase identifier, unique in the company; record routes live at /api/v2/{name}'),
    label: z.string(),
    plural: z.string(),
    description: z.string(),
    icon: z.string(),
    group: z.string().nullable(),
    deleted: z.boolean(),
    ...auditFieldsWithout('index'),
    revision: auditFields.revision.describe('The stream revision of the object'),
  })
  .meta({ id: 'ObjectDefinition' });

const display = {
  label: z.string().max(200),
  plural: z.string().max(200).optional().describe('Default: the label'),
  description: z.string().max(2000).optional(),
  icon: z.string().max(200).optional(),
  group: z.string().max(200).nullable().optional(),
};

export const createObjectBodySchema = z
  .object({ name: z.string().max(200).describe('Lowercase identifier (a-z, 0-9, _), not a top-level route group; immutable'), ...display })
  .meta({ id: 'CreateObject' });

export const updateObjectBodySchema = z
  .object({ name: z.string().max(200).optional().describe('May be sent, but only with the current name'), ...display, label: display.label.optional() })
  .meta({ id: 'UpdateObject' });

export const toObject = (row: ObjectRow, actors: Actors): z.infer<typeof objectSchema> => ({
  uuid: row.object_uuid,
  name: row.name,
  label: row.label,
  plural: row.plural,
  description: row.description,
  icon: row.icon,
  group: row.grp,
  ...deletableAuditOf(row, actors),
});
