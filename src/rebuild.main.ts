import { loadConfig } from './config.js';
import { openPlatform } from './platform.js';
import { rebuildReadModels } from './projections/rebuild.js';

// `npm run rebuild`: drop every read model's rows and replay the log into them.
// A rebuild replays the whole log: its statements run under the maintenance time limit.
const loaded = loadConfig();
const config = { ...loaded, STATEMENT_TIMEOUT_MS: loaded.MAINTENANCE_STATEMENT_TIMEOUT_MS };
const platform = await openPlatform(config);
try {
  const { events, ms } = await rebuildReadModels(platform.db, platform.store, platform.projections);
  process.stdout.write(`rebuilt ${platform.projections.length} read models from ${events} events in ${ms} ms\n`);
} finally {
  await platform.close();
}
