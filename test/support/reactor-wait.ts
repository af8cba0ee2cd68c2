import type { TestApp } from './test-app.js';
import { waitFor } from './webhook-receiver.js';

/**
 * Waits until the reactor `name` has committed its checkpoint past every event of `streams`: what
 * those events make it do has happened. A test that depends on the order in which a reactor sees
 * events (a create before a connect) waits here instead of guessing with a sleep.
 */
export async function reactorPassed(t: TestApp, name: string, streams: readonly string[]) {
  const wanted = new Set(streams);
  await waitFor(async () => {
    const [row] = await t.platform.db.query<{ checkpoint: string }>('select checkpoint from checkpoints where name = $1', [name]);
    const pending = await t.platform.store.readAll({ after: row?.checkpoint || undefined, maxCount: 100_000 });
    return !pending.some((e) => wanted.has(e.streamId));
  }, 10_000, `${name} past ${streams.join(', ')}`);
}
