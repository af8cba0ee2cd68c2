import { setFlagsFromString } from 'node:v8';
import { loadConfig, ConfigError } from './config.js';
import { openPlatform } from './platform.js';
import { buildApp } from './app.js';
import { startDraining } from './ops/draining.js';

// The server's own progress lines (not request logs): a newcomer sees what the start is doing,
// and how long each step took since the process began.
const say = (line: string) => process.stdout.write(`platform: [${Math.round(performance.now())} ms] ${line}\n`);

// A shutdown that has not finished by then (a request that never ends) exits anyway.
const SHUTDOWN_LIMIT_MS = 25_000;

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // V8 reads this factor at every full collection, so setting it now is in time for all of them.
  if (config.HEAP_GROWING_PERCENT > 0) setFlagsFromString(`--heap-growing-percent=${config.HEAP_GROWING_PERCENT}`);
  const platform = await openPlatform(config, { onStep: say });
  const app = await buildApp({ config, db: platform.db, store: platform.store });
  say(config.REACTORS_ENABLED ? 'starting reactors (they catch up from their checkpoints)' : 'reactors disabled (REACTORS_ENABLED=false)');
  await app.ready();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping (health answers 503; ${config.SHUTDOWN_DRAIN_MS} ms more of requests, then no new connections; requests in flight finish, reactors stop at a checkpoint)`);
    setTimeout(() => {
      say(`shutdown took over ${SHUTDOWN_LIMIT_MS} ms; exiting`);
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS + config.SHUTDOWN_DRAIN_MS).unref();
    // Connections accepted but whose request has not been read yet count as idle, and closing the
    // server resets them: the drain lets the requests already sent arrive and be served first.
    startDraining();
    await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DRAIN_MS));
    try {
      await app.close();
      await platform.close();
      say('stopped');
      process.exit(0);
    } catch (err) {
      process.stderr.write(`shutdown failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  say(`listening on ${address} (health: ${address}/api/v2/health)`);
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
