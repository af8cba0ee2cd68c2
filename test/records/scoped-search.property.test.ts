import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { openTestDb } from '../support/test-db.js';

// scoped_tsvector (migration 0009) puts the object's key in front of every lexeme by a plain
// replace; migration 0006 did it with a regular expression over the lexemes. For any text, the
// two must give the same tsvector, or records written before and after would not match alike.
let db: Db;

beforeAll(async () => {
  db = await openTestDb();
  await db.exec(`create or replace function scoped_tsvector_0006(object_uuid uuid, v tsvector) returns tsvector
    language sql immutable
    as $$ select regexp_replace(v::text, '''((?:[^'']|'''')*)''', '''' || search_scope(object_uuid) || '\\1''', 'g')::tsvector $$`);
});
afterAll(async () => db.close());

const chars = ["'", "''", '\\', ' ', ':', ',', '-', '.', '@', 'a', 'B', 'é', 'ß', '1', '2', 'x', '😀', '\t', '"', '&', '|', '!', '(', ')', 'İ', 'ﬀ'];
const text = fc.array(fc.constantFrom(...chars), { maxLength: 40 }).map((a) => a.join(''));

describe('scoped_tsvector', () => {
  it('equals the regular-expression scoping of migration 0006, for any text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 20 }), fc.uuid(), async (docs, object) => {
        const rows = await db.query<{ now: string; before: string; plain: string }>(
          `select scoped_tsvector($1::uuid, to_tsvector('simple', d))::text as now, scoped_tsvector_0006($1::uuid, to_tsvector('simple', d))::text as before,
                  to_tsvector('simple', d)::text as plain
             from unnest($2::text[]) as d`,
          [object, docs],
        );
        for (const r of rows) expect(r.now).toBe(r.before);
        // Not vacuous: the texts have lexemes, and scoping changed them.
        return rows.some((r) => r.plain !== '' && r.now !== r.plain) || rows.every((r) => r.plain === '');
      }),
      { numRuns: 80 },
    );
    const [some] = await db.query<{ n: number }>(`select length(to_tsvector('simple', 'it''s a x''''y test'))::int as n`);
    expect(some!.n).toBeGreaterThan(0);
  });
});
