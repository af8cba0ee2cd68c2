import { formStream, type FormEvent } from '../../../aggregates/form/form.events.js';
import type { StoredEvent } from '../../../aggregates/kernel/events.js';
import { formByUuid, type FormRow } from '../../../read-models/forms.queries.js';
import { companyActor } from '../../auth/actor.js';
import type { Db } from '../../db/db.js';
import { toForm } from '../../forms/forms.schemas.js';
import type { ResourceHistoryAdapter } from '../resource-history.js';
import { auditFold } from './audit-fold.js';

/** Forms: `rm_forms` as projections/forms.projection.ts writes it. */
export const formsHistory = (db: Db): ResourceHistoryAdapter<FormRow> => ({
  kind: 'Form',
  historyPath: '/api/v2/forms/{uuid}/history',
  stream: formStream,
  async find(request, uuid) {
    const tenant = companyActor(request).tenant;
    const row = await formByUuid(db, tenant, uuid);
    return row && { tenant, row };
  },
  evolve(row, stored: StoredEvent, current) {
    const event = stored as unknown as FormEvent;
    switch (event.type) {
      case 'FormCreated': {
        const { formUuid: _f, ...s } = event.data;
        return { tenant: current.tenant, form_uuid: current.form_uuid, idx: current.idx, object_uuid: s.objectUuid, object_name: s.objectName, name: s.name, label: s.label, published: s.published, settings: s, ...auditFold.created(stored) };
      }
      case 'FormUpdated': {
        const { formUuid: _f, ...s } = event.data;
        return row && { ...row, object_name: s.objectName, name: s.name, label: s.label, published: s.published, settings: s, ...auditFold.updated(stored) };
      }
      case 'FormDeleted':
        return row && { ...row, ...auditFold.deleted(stored) };
      case 'FormRestored':
        return row && { ...row, ...auditFold.restored(stored) };
      default:
        return row;
    }
  },
  render: toForm,
});
