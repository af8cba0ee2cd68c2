import type { StoredEvent } from '../../../aggregates/kernel/events.js';
import type { AuditRow } from '../../../read-models/audit-row.js';

/**
 * The bookkeeping columns of a row after an event, as the projections write them (each resource's
 * projection says which actor column a delete moves: `deleted` takes whether it sets updated_by).
 */
const at = (e: StoredEvent) => e.metadata.occurredAt;
const by = (e: StoredEvent) => e.metadata.userUuid;

export const auditFold = {
  created: (e: StoredEvent): Omit<AuditRow, 'idx'> => ({ created_at: at(e), updated_at: at(e), deleted_at: null, created_by: by(e), updated_by: by(e), deleted_by: null, revision: e.revision }),
  updated: (e: StoredEvent) => ({ updated_at: at(e), updated_by: by(e), revision: e.revision }),
  deleted: (e: StoredEvent, movesUpdatedBy = false) => ({ updated_at: at(e), deleted_at: at(e), deleted_by: by(e), revision: e.revision, ...(movesUpdatedBy ? { updated_by: by(e) } : {}) }),
  restored: (e: StoredEvent) => ({ updated_at: at(e), updated_by: by(e), deleted_at: null, deleted_by: null, revision: e.revision }),
};
