import type { StoredEvent } from '../../../aggregates/kernel/events.js';
import { savedFilterStream, type SavedFilterEvent } from '../../../aggregates/saved-filter/saved-filter.events.js';
import { savedFilterOf, type SavedFilterRow } from '../../../read-models/saved-filters.queries.js';
import { companyActor } from '../../auth/actor.js';
import type { Db } from '../../db/db.js';
import { toSavedFilter } from '../../records/saved-filters.routes.js';
import type { ResourceHistoryAdapter } from '../resource-history.js';
import { auditFold } from './audit-fold.js';

/** Saved filters: `rm_saved_filters` as projections/saved-filters.projection.ts writes it (a delete moves updated_by too). */
export const savedFiltersHistory = (db: Db): ResourceHistoryAdapter<SavedFilterRow> => ({
  kind: 'Saved filter',
  historyPath: '/api/v2/filters/{filterUuid}/history',
  stream: savedFilterStream,
  async find(request, uuid) {
    const tenant = companyActor(request).tenant;
    const row = await savedFilterOf(db, tenant, uuid);
    return row && { tenant, row };
  },
  evolve(row, stored: StoredEvent, current) {
    const event = stored as unknown as SavedFilterEvent;
    switch (event.type) {
      case 'SavedFilterCreated': {
        const d = event.data;
        return { filter_uuid: current.filter_uuid, name: d.name, object_name: d.objectName, filters: d.filters, groups: d.groups, sort: d.sort, ...auditFold.created(stored) };
      }
      case 'SavedFilterUpdated': {
        const d = event.data;
        if (!row) return row;
        return {
          ...row,
          name: d.name ?? row.name,
          object_name: d.objectName ?? row.object_name,
          filters: d.filters ?? row.filters,
          groups: d.groups ?? row.groups,
          sort: d.sort ?? row.sort,
          ...auditFold.updated(stored),
        };
      }
      case 'SavedFilterDeleted':
        return row && { ...row, ...auditFold.deleted(stored, true) };
      case 'SavedFilterRestored':
        return row && { ...row, ...auditFold.restored(stored) };
      default:
        return row;
    }
  },
  render: toSavedFilter,
});
