import type { TestApp } from './test-app.js';
import { waitFor } from './webhook-receiver.js';

/**
 * Waits until the reactor `name` has committed its checkpoint past every event of `streams`: what
 * those events make it do has happened. A test that depends on the order in which a reactor sees
 * events (a create before a connect) waits here instead of guessing with a sleep.
 *
 * It reads the events table itself, not the store's `readAll`: that read stops below the oldest
 * open transaction of the whole server (`pg_snapshot_xmin`), so while any other session on it held
 * one, an event not yet past that point was missing from the answer and the wait ended before the
 * reactor had seen it.
 */
export async function reactorPassed(t: TestApp, name: string, streams: readonly string[]) {
  await waitFor(async () => {
    const [row] = await t.platform.db.query<{ checkpoint: string }>('select checkpoint from checkpoints where name = $1', [name]);
    const [tx, position] = (row?.checkpoint || '0:0').split(':');
    const [left] = await t.platform.db.query<{ n: number }>(
      `select count(*)::int as n from events
        where stream_id = any($1::text[]) and (transaction_id, position) > ($2::text::xid8, $3::bigint)`,
      [[...streams], tx, Number(position)],
    );
    return left?.n === 0;
  }, 10_000, `${name} past ${streams.join(', ')}`);
}
