/** The bookkeeping columns every resource table keeps (index, timestamps, actors, revision). */
export interface AuditRow {
  idx: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  created_by: string | null;
  updated_by: string | null;
  deleted_by: string | null;
  revision: number;
}
