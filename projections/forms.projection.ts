import type { StoredEvent } from '../aggregates/kernel/events.js';
import {
  FORM_SUBMISSION_STREAM_PREFIX, formEventTypes, formSubmissionEventTypes, formSubmissionUuidOfStream, formUuidOfStream, type FormEvent, type FormSubmissionEvent,
} from '../aggregates/form/form.events.js';
import type { FusedWrite, PendingEvent, Projection } from './projection.js';

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

/** A submission's row (the one event of its stream), as `apply` and the fused write insert it. */
const submissionRow = (e: PendingEvent) => {
  const d = (e as unknown as StoredEvent<FormSubmissionEvent> & FormSubmissionEvent).data;
  return {
    tenant: e.tenant, submission_uuid: formSubmissionUuidOfStream(e.streamId), form_uuid: d.formUuid, form_revision: d.formRevision, record_uuid: d.recordUuid,
    record_uuids: d.recordUuids, related: d.related, score: d.score, visitor: d.visitor, created_at: e.metadata.occurredAt,
  };
};

const submissionColumns = 'tenant, submission_uuid, form_uuid, form_revision, record_uuid, record_uuids, related, score, visitor, created_at';

/**
 * Submissions as CTEs `fs_in`, `fs` of the append statement (`Projection.withAppend`, docs/adr/0003
 * and 0004): with a form submission's records and connections, the whole submission is one
 * statement. Only the streams the append made (`heads`).
 */
const submittedWithAppend: FusedWrite = {
  name: 'append_with_form_submissions',
  accepts: (e) => e.type === 'FormSubmissionEvent' && e.revision === 0,
  sql: (param) => ({
    ctes: `fs_in as (
  select x.* from jsonb_to_recordset(${param}::jsonb) as x(tenant text, submission_uuid uuid, form_uuid uuid, form_revision int, record_uuid uuid,
    record_uuids jsonb, related jsonb, score double precision, visitor jsonb, created_at bigint)
   where exists (select 1 from heads h where h.tenant = x.tenant and h.stream_id = '${FORM_SUBMISSION_STREAM_PREFIX}' || x.submission_uuid::text)
),
fs as (insert into rm_form_submissions (${submissionColumns}) select ${submissionColumns} from fs_in on conflict do nothing returning 1)`,
    check: '(select count(*) from fs)',
  }),
  input: (events) => JSON.stringify(events.map(submissionRow)),
};

/** `rm_form_submissions`: one row per submission (a one-event stream: insert once). */
export const formSubmissionsProjection: Projection = {
  name: 'form-submissions',
  tables: ['rm_form_submissions'],
  handles: formSubmissionEventTypes,
  withAppend: [submittedWithAppend],
  async apply(stored, tx) {
    const r = submissionRow(stored);
    await tx.query(
      `insert into rm_form_submissions (${submissionColumns})
       values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $9::jsonb, $10) on conflict do nothing`,
      [r.tenant, r.submission_uuid, r.form_uuid, r.form_revision, r.record_uuid, JSON.stringify(r.record_uuids), JSON.stringify(r.related), r.score, JSON.stringify(r.visitor), r.created_at],
    );
  },
};
