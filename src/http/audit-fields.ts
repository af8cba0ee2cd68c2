import { z } from 'zod';
import type { AuditRow } from '../../read-models/audit-row.js';

/** Who did it: a record-like reference (spec 2.3 carries more; the uuid is what we hold). */
export const actorRefSchema = z.object({ uuid: z.string() }).nullable();

/** The bookkeeping fields every resource of spec 2.9 shape carries. */
export const auditFields = {
  index: z.number().int(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  deletedAt: z.number().int().nullable(),
  createdBy: actorRefSchema,
  updatedBy: actorRefSchema,
  deletedBy: actorRefSchema,
  revision: z.number().int(),
};


const ref = (uuid: string | null) => (uuid ? { uuid } : null);

/** The audit fields of a read-model row, as the API shows them. */
export const auditFieldsOf = (row: AuditRow) => ({
  index: row.idx,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
  createdBy: ref(row.created_by),
  updatedBy: ref(row.updated_by),
  deletedBy: ref(row.deleted_by),
  revision: row.revision,
});
