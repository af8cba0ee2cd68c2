import type { Sql } from '../ports/sql.js';
import type { AuditRow } from './audit-row.js';

export interface FileRow extends AuditRow {
  tenant: string;
  file_uuid: string;
  storage_key: string;
  name: string;
  content_type: string;
  size: number;
  sha256: string;
  visibility: 'private' | 'public';
  page_uuid: string | null;
  purged_at: number | null;
}

const columns = `tenant, file_uuid, storage_key, name, content_type, size::float8 as size, sha256, visibility, page_uuid, idx, created_at, updated_at, deleted_at, purged_at, created_by, updated_by, deleted_by, revision`;

/** A file of the tenant that is not purged, deleted or not (null when the tenant has none with this uuid). */
export async function fileByUuid(sql: Sql, tenant: string, fileUuid: string): Promise<FileRow | null> {
  const [row] = await sql.query<FileRow>(`select ${columns} from rm_files where tenant = $1 and file_uuid = $2 and purged_at is null`, [tenant, fileUuid]);
  return row ?? null;
}

/** The tenant's live (or deleted) files, oldest first. */
export async function listFiles(sql: Sql, tenant: string, o: { deleted: boolean; limit: number; offset: number }): Promise<{ rows: FileRow[]; total: number }> {
  const where = 'tenant = $1 and purged_at is null and (deleted_at is not null) = $2';
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_files where ${where}`, [tenant, o.deleted]);
  const rows = await sql.query<FileRow>(`select ${columns} from rm_files where ${where} order by created_at, file_uuid limit $3 offset $4`, [tenant, o.deleted, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}

export interface RecordFileRow extends FileRow {
  property: string;
  attached_at: number;
}

/** The live files attached to a record, with the property each sits in, in the order they were attached. */
export async function filesOfRecord(sql: Sql, tenant: string, recordUuid: string, o: { limit: number; offset: number }): Promise<{ rows: RecordFileRow[]; total: number }> {
  const from = `from rm_file_attachments a join rm_files f on f.tenant = a.tenant and f.file_uuid = a.file_uuid
    where a.tenant = $1 and a.record_uuid = $2 and f.deleted_at is null and f.purged_at is null`;
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n ${from}`, [tenant, recordUuid]);
  const rows = await sql.query<RecordFileRow>(
    `select ${columns.split(', ').map((c) => `f.${c}`).join(', ')}, a.property, a.attached_at ${from} order by a.attached_at, f.file_uuid, a.property limit $3 offset $4`,
    [tenant, recordUuid, o.limit, o.offset],
  );
  return { rows, total: count?.n ?? 0 };
}
