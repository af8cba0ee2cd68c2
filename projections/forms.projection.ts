import type { StoredEvent } from '../aggregates/kernel/events.js';
import {
  formEventTypes, formSubmissionEventTypes, formSubmissionUuidOfStream, formUuidOfStream, type FormEvent, type FormSubmissionEvent,
} from '../aggregates/form/form.events.js';
import type { Projection } from './projection.js';

/** `rm_forms`: one row per form (its settings as JSON), guarded by the stream revision (idempotent). */
export const formsProjection: Projection = {
  name: 'forms',
  tables: ['rm_forms'],
  handles: formEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<FormEvent> & FormEvent;
    const { tenant, revision } = stored;
    const uuid = formUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'FormCreated': {
        const { formUuid: _f, ...s } = event.data;
        await tx.query(
          `insert into rm_forms (tenant, form_uuid, object_uuid, object_name, name, label, published, settings, idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, (select count(*) from rm_forms where tenant = $1), $9, $9, $10, $10, $11)
           on conflict do nothing`,
          [tenant, uuid, s.objectUuid, s.objectName, s.name, s.label, s.published, JSON.stringify(s), at, by, revision],
        );
        return;
      }
      case 'FormUpdated': {
        const { formUuid: _f, ...s } = event.data;
        await tx.query(
          `update rm_forms set object_name = $4, name = $5, label = $6, published = $7, settings = $8::jsonb, updated_at = $9, updated_by = $10, revision = $3
            where tenant = $1 and form_uuid = $2 and revision < $3`,
          [tenant, uuid, revision, s.objectName, s.name, s.label, s.published, JSON.stringify(s), at, by],
        );
        return;
      }
      case 'FormDeleted':
        await tx.query('update rm_forms set revision = $3, updated_at = $4, deleted_at = $4, deleted_by = $5 where tenant = $1 and form_uuid = $2 and revision < $3', [tenant, uuid, revision, at, by]);
        return;
      case 'FormRestored':
        await tx.query(
          'update rm_forms set revision = $3, updated_at = $4, updated_by = $5, deleted_at = null, deleted_by = null where tenant = $1 and form_uuid = $2 and revision < $3',
          [tenant, uuid, revision, at, by],
        );
        return;
    }
  },
};

/** `rm_form_submissions`: one row per submission (a one-event stream: insert once). */
export const formSubmissionsProjection: Projection = {
  name: 'form-submissions',
  tables: ['rm_form_submissions'],
  handles: formSubmissionEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<FormSubmissionEvent> & FormSubmissionEvent;
    const d = event.data;
    await tx.query(
      `insert into rm_form_submissions (tenant, submission_uuid, form_uuid, form_revision, record_uuid, record_uuids, related, score, visitor, created_at)
       values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $9::jsonb, $10) on conflict do nothing`,
      [stored.tenant, formSubmissionUuidOfStream(stored.streamId), d.formUuid, d.formRevision, d.recordUuid, JSON.stringify(d.recordUuids), JSON.stringify(d.related), d.score, JSON.stringify(d.visitor), stored.metadata.occurredAt],
    );
  },
};
