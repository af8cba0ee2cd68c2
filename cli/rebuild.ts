import { loadConfig } from '../src/config.js';
import { openPlatform } from '../src/platform.js';
import { rebuildReadModels } from '../src/projections/rebuild.js';
import { makeProgress } from './progress.js';

/**
 * Rebuilds every read model of the database named by the server's own environment (DATABASE_URL,
 * or DATA_DIR for PGlite), with a progress bar: what `npm run rebuild` does. Stop the API servers first.
 */
export async function rebuild(print: (line: string) => void, quiet = false) {
  const loaded = loadConfig();
  const config = { ...loaded, STATEMENT_TIMEOUT_MS: loaded.MAINTENANCE_STATEMENT_TIMEOUT_MS, LOG_LEVEL: 'warn' as const };
  const platform = await openPlatform(config);
  let progress: ReturnType<typeof makeProgress> | undefined;
  let lastLine = 0;
  try {
    const { events, ms } = await rebuildReadModels(platform.db, platform.store, platform.projections, 2000, ({ applied, total }) => {
      progress ??= makeProgress(quiet ? undefined : total, 'events');
      progress.set(applied, total);
      // Without a terminal: a line every 10 % (and the first).
      const tenth = Math.floor((applied / Math.max(1, total)) * 10);
      if (!process.stderr.isTTY && !quiet && (applied === 0 || tenth > lastLine)) {
        lastLine = tenth;
        print(`rebuild: ${applied}/${total} events`);
      }
    });
    progress?.stop();
    print(`rebuilt ${platform.projections.length} read models from ${events} events in ${ms} ms`);
  } finally {
    await platform.close();
  }
}
