import { plainQuery } from './text-rank.js';
import { scopedTextQuery } from './text-query.queries.js';
import type { Sql } from '../../ports/sql.js';

/**
 * Free-text queries as the in-process index reads them (ADR 0016): parsed by PostgreSQL
 * (websearch_to_tsquery, scoped to the object), kept by object and query text (the parse is
 * deterministic), at most MAX of them (least recently used out first). A plain query (one
 * lexeme, an AND of them) is its distinct lexemes; any other shape is null (the SQL path answers).
 */
const MAX = 1024;
const kept = new Map<string, string[] | null>();

/** The distinct lexemes of a plain query, in rank order; null for another shape. */
export async function plainTextQuery(sql: Sql, objectUuid: string, query: string): Promise<string[] | null> {
  const key = `${objectUuid}\u0000${query}`;
  const known = kept.get(key);
  if (known !== undefined) {
    kept.delete(key);
    kept.set(key, known);
    return known;
  }
  const lexemes = plainQuery(await scopedTextQuery(sql, objectUuid, query));
  kept.set(key, lexemes);
  if (kept.size > MAX) kept.delete(kept.keys().next().value!);
  return lexemes;
}
