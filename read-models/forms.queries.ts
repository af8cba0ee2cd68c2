import type { FormSettings } from '../aggregates/form/form.events.js';
import type { Sql } from '../ports/sql.js';
import type { AuditRow } from './audit-row.js';
import { likeContains } from './list-spec.js';

export interface FormRow extends AuditRow {
  tenant: string;
  form_uuid: string;
  object_uuid: string;
  object_name: string;
  name: string;
  label: string;
  published: boolean;
  settings: FormSettings;
}

export interface FormSubmissionRow {
  tenant: string;
  submission_uuid: string;
  form_uuid: string;
  form_revision: number;
  record_uuid: string;
  record_uuids: string[];
  related: { itemId: string; recordUuid: string; objectName: string; relationUuid: string }[];
  score: number | null;
  visitor: { address: string; userAgent: string };
  created_at: number;
}

/** A form of the tenant, deleted or not (null when the tenant has none with this uuid). */
export async function formByUuid(sql: Sql, tenant: string, formUuid: string): Promise<FormRow | null> {
  const [row] = await sql.query<FormRow>('select * from rm_forms where tenant = $1 and form_uuid = $2', [tenant, formUuid]);
  return row ?? null;
}

/** The tenant's live forms (or the deleted ones; of one object; only the published ones), oldest first. */
export async function listForms(
  sql: Sql,
  tenant: string,
  o: { deleted: boolean; objectUuid?: string; publishedOnly?: boolean; query?: string; limit: number; offset: number },
): Promise<{ rows: FormRow[]; total: number }> {
  const where = `tenant = $1 and (deleted_at is not null) = $2 and ($3::uuid is null or object_uuid = $3) and (not $4 or published)
    and ($5::text is null or name ilike $5 or label ilike $5 or object_name ilike $5)`;
  const params = [tenant, o.deleted, o.objectUuid ?? null, o.publishedOnly ?? false, o.query ? likeContains(o.query) : null];
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_forms where ${where}`, params);
  const rows = await sql.query<FormRow>(`select * from rm_forms where ${where} order by created_at, form_uuid limit $6 offset $7`, [...params, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}

export async function submissionByUuid(sql: Sql, tenant: string, submissionUuid: string): Promise<FormSubmissionRow | null> {
  const [row] = await sql.query<FormSubmissionRow>('select * from rm_form_submissions where tenant = $1 and submission_uuid = $2', [tenant, submissionUuid]);
  return row ?? null;
}

/** A form's submissions, newest first. */
export async function listSubmissions(sql: Sql, tenant: string, formUuid: string, o: { limit: number; offset: number }): Promise<{ rows: FormSubmissionRow[]; total: number }> {
  const [count] = await sql.query<{ n: number }>('select count(*)::int as n from rm_form_submissions where tenant = $1 and form_uuid = $2', [tenant, formUuid]);
  const rows = await sql.query<FormSubmissionRow>(
    'select * from rm_form_submissions where tenant = $1 and form_uuid = $2 order by created_at desc, submission_uuid limit $3 offset $4',
    [tenant, formUuid, o.limit, o.offset],
  );
  return { rows, total: count?.n ?? 0 };
}
