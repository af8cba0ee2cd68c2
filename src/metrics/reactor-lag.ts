import type { Db } from '../db/db.js';

/** How far one reactor is behind the log: events after its checkpoint (counted up to LAG_COUNT_CAP) and the age of the oldest. */
export interface ReactorLag {
  reactor: string;
  events: number;
  seconds: number;
}

export const LAG_COUNT_CAP = 1_000_000;

/** Every reactor's lag, from its checkpoint row (PostgreSQL and PGlite event stores; checkpoints are `<xid8>:<position>`). */
export async function reactorLags(db: Db, now = Date.now()): Promise<ReactorLag[]> {
  const rows = await db.query<{ name: string; checkpoint: string }>('select name, checkpoint from checkpoints order by name');
  const out: ReactorLag[] = [];
  for (const { name, checkpoint } of rows) {
    const [tx, pos] = checkpoint ? checkpoint.split(':') : ['0', '0'];
    const after = `(transaction_id, position) > ($1::text::xid8, $2::int8)`;
    const [count] = await db.query<{ n: number }>(`select count(*)::int8 as n from (select 1 from events where ${after} limit ${LAG_COUNT_CAP}) e`, [tx, pos]);
    const [oldest] = await db.query<{ occurred_at: number }>(`select occurred_at from events where ${after} order by transaction_id, position limit 1`, [tx, pos]);
    out.push({ reactor: name, events: Number(count?.n ?? 0), seconds: oldest ? Math.max(0, (now - Number(oldest.occurred_at)) / 1000) : 0 });
  }
  return out;
}
