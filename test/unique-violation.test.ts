import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import { mapUniqueViolations } from '../src/db/unique-violation.js';
import { openTestDb } from './support/test-db.js';

// The one try/catch around a unique violation (src/db/unique-violation.ts), on the database's own errors.
let db: Db;
beforeAll(async () => {
  db = await openTestDb();
  await db.query('create table taken_names (name text constraint taken_names_unique unique, other text constraint taken_others_unique unique)');
  await db.query(`insert into taken_names values ('a', 'x')`);
});
afterAll(async () => db?.close());

const insert = (name: string, other: string) => () => db.query('insert into taken_names values ($1, $2)', [name, other]).then(() => 'inserted');

describe('mapUniqueViolations', () => {
  it("answers the write's own result when nothing is taken", async () => {
    await expect(mapUniqueViolations(insert('b', 'y'), { taken_names_unique: () => 'mapped' })).resolves.toBe('inserted');
  });

  it('throws or answers what the entry of the violated index makes of it', async () => {
    await expect(
      mapUniqueViolations(insert('a', 'z'), {
        taken_names_unique: () => {
          throw new Error('the name is taken');
        },
      }),
    ).rejects.toThrow('the name is taken');
    await expect(mapUniqueViolations(insert('a', 'z2'), { taken_others_unique: () => 'other', taken_names_unique: async () => 'winner' })).resolves.toBe('winner');
  });

  it('throws the database error as it came for an index it does not name, and any other failure', async () => {
    await expect(mapUniqueViolations(insert('c', 'x'), { taken_names_unique: () => 'mapped' })).rejects.toMatchObject({ code: '23505' });
    await expect(mapUniqueViolations(() => db.query('select * from no_such_table'), { taken_names_unique: () => [] })).rejects.toMatchObject({ code: '42P01' });
  });
});
