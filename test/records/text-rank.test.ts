import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { parseVector, plainQuery, tsRank } from '../../read-models/record-index/index.js';
import { openTestDb } from '../support/test-db.js';

// ts_rank as the in-process index computes it (text-rank.ts, ADR 0016) against the numbers
// PostgreSQL itself returns for the same vector and query: equal to the last bit of the float4.
let db: Db;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(async () => db.close());

const vocabulary = ['kalo', 'mira', 'tesu', "o'b", 'back\\slash', 'zé', 'ß'];
const docArb = fc.array(fc.constantFrom(...vocabulary, 'pad pad pad pad pad pad pad pad pad pad'), { minLength: 1, maxLength: 40 }).map((ws) => ws.join(' '));
const weightArb = fc.constantFrom('A', 'B', 'C', 'D');
const queryArb = fc.array(fc.constantFrom('kalo', 'mira', 'tesu', 'zé', 'ß', 'absent'), { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));

async function pgRank(doc: string, weight: string, extra: string, query: string) {
  const [row] = await db.query<{ v: string; q: string; rank: number }>(
    `with v as (select setweight(to_tsvector('simple', $1), $2::"char") || to_tsvector('simple', $3) as v),
          q as (select websearch_to_tsquery('simple', $4) as q)
     select v.v::text as v, q.q::text as q, ts_rank(v.v, q.q)::float8 as rank from v, q`,
    [doc, weight, extra, query],
  );
  return row!;
}

const ranked = (vector: string, query: string) => {
  const lexemes = plainQuery(query)!;
  const parsed = parseVector(vector);
  return tsRank(lexemes.map((l) => parsed.get(l) ?? null));
};

describe('ts_rank in process', () => {
  it('equals PostgreSQL for a few known vectors', async () => {
    for (const [doc, query] of [['kalo mira kalo', 'kalo'], ['kalo mira kalo', 'kalo mira'], ['kalo', 'kalo kalo'], ['mira tesu', 'tesu mira']]) {
      const pg = await pgRank(doc, 'D', '', query);
      expect(ranked(pg.v, pg.q), `${doc} / ${query}`).toBe(pg.rank);
    }
  });

  it('equals PostgreSQL for random vectors (repeats, weights, distances past 100) and plain queries', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(docArb, weightArb, docArb, queryArb, async (doc, weight, extra, query) => {
        const pg = await pgRank(doc, weight, extra, query);
        const lexemes = plainQuery(pg.q);
        expect(lexemes, pg.q).not.toBeNull();
        const parsed = parseVector(pg.v);
        // ts_rank of a vector that does not hold the query is not what the index asks for.
        if (!lexemes!.every((l) => parsed.has(l))) return;
        compared++;
        expect(ranked(pg.v, pg.q), `${pg.v} / ${pg.q}`).toBe(pg.rank);
      }),
      { numRuns: 300, seed: 16 },
    );
    expect(compared).toBeGreaterThan(50);
  });

  it('reads quotes and backslashes in lexemes, and declines other query shapes', () => {
    expect([...parseVector("'a''b':1,3A 'c\\\\d' 'e':2B").entries()].map(([l, p]) => [l, [...p]])).toEqual([
      ["a'b", [1, (3 << 14) | 3]],
      ['c\\d', []],
      ['e', [(2 << 14) | 2]],
    ]);
    expect(plainQuery("'b' & 'a''x' & 'b'")).toEqual(["a'x", 'b']);
    for (const q of ["'a' <-> 'b'", "'a' | 'b'", "!'a'", "'a':*", "'a':A", "'a' & !'b'", '', "( 'a' | 'b' ) & 'c'"]) expect(plainQuery(q), q).toBeNull();
  });
});
