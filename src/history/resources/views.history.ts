import type { StoredEvent } from '../../../aggregates/kernel/events.js';
import { viewStream, type ViewEvent } from '../../../aggregates/view/view.events.js';
import { viewFor, type ViewRow } from '../../../read-models/views.queries.js';
import { companyActor, hasScope } from '../../auth/actor.js';
import type { Db } from '../../db/db.js';
import { toView } from '../../views/views.schemas.js';
import type { ResourceHistoryAdapter } from '../resource-history.js';
import { auditFold } from './audit-fold.js';
import { columnsOf } from './snake-columns.js';

/** Views: `rm_views` as projections/views.projection.ts writes it. Who may read it is judged on the view as it is now. */
export const viewsHistory = (db: Db): ResourceHistoryAdapter<ViewRow> => ({
  kind: 'View',
  historyPath: '/api/v2/views/{uuid}/history',
  stream: viewStream,
  async find(request, uuid) {
    const actor = companyActor(request);
    const row = await viewFor(db, actor.tenant, { userUuid: actor.userUuid, canShare: hasScope(actor, 'views:share') }, uuid);
    return row && { tenant: actor.tenant, row };
  },
  evolve(row, stored: StoredEvent, current) {
    const event = stored as unknown as ViewEvent;
    switch (event.type) {
      case 'ViewCreated': {
        const { viewUuid: _v, ownerUuid, ...settings } = event.data;
        return { tenant: current.tenant, view_uuid: current.view_uuid, idx: current.idx, owner_uuid: ownerUuid, ...(columnsOf(settings) as Partial<ViewRow>), ...auditFold.created(stored) } as ViewRow;
      }
      case 'ViewUpdated':
        return row && { ...row, ...(columnsOf(event.data.changes) as Partial<ViewRow>), ...auditFold.updated(stored) };
      case 'ViewDeleted':
        return row && { ...row, ...auditFold.deleted(stored) };
      case 'ViewRestored':
        return row && { ...row, ...auditFold.restored(stored) };
      default:
        return row;
    }
  },
  render: toView,
});
