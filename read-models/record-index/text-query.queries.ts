import type { Sql } from '../../ports/sql.js';
import { textQuery } from './record-index.sql.js';

/**
 * A free-text query (websearch syntax) as PostgreSQL parses it for an object, scoped as the SQL
 * path scopes it (`textQuery`): its tsquery's text form, or '' when it holds no lexeme.
 */
export async function scopedTextQuery(sql: Sql, objectUuid: string, query: string): Promise<string> {
  const [row] = await sql.query<{ q: string }>(`select ${textQuery('$1', '$2::text')}::text as q`, [objectUuid, query], 'records_text_query');
  return row?.q ?? '';
}
