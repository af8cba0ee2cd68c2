import { viewDefinitions, type RecordViewRow } from '../../read-models/record-views.queries.js';
import type { AuditUser } from '../http/audit-fields.js';
import { nameOf } from '../records/record-view.js';
import type { ProfileRecord } from './auth.schemas.js';

/**
 * The user's profile in a company (spec 2.4 `record`): the record-like object (spec 2.3) of the
 * User-trait record linked to them (`userRecordView`; docs/records.md, "User trait"), with `user`
 * their user object.
 */
export function toProfileRecord(row: RecordViewRow, user: AuditUser): ProfileRecord {
  const defs = viewDefinitions(row);
  const name = nameOf(row.vals, defs);
  return {
    uuid: row.uuid,
    name,
    label: name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
    createdByUuid: row.created_by,
    updatedByUuid: row.updated_by,
    deletedByUuid: row.deleted_by,
    index: row.revision,
    deleted: row.deleted_at !== null,
    complete: true,
    properties: defs.map((d) => ({ icon: d.icon, name: d.name, value: Object.hasOwn(row.vals, d.name) ? row.vals[d.name] : null, type: d.type, label: d.label })),
    objects: Object.fromEntries(row.object_names.map((o) => [o.name, o.uuid])),
    user,
  };
}
