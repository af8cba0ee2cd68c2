// `npm run build` (and `npm ci`, through `prepare`): the server's TypeScript transpiled to
// dist/, file by file in the same tree, with the SQL migrations beside it, so `npm start` runs
// plain JavaScript and compiles nothing at start (docs/operations.md). Types are checked by
// `tsc --noEmit`, not here.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildConsole } from './build-console.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
const started = Date.now();
// readdirSync's `recursive` (Node 20), not fs.globSync (Node 22).
const entryPoints = ['src', 'cli', 'aggregates', 'ports', 'projections', 'read-models']
  .flatMap((dir) => readdirSync(join(root, dir), { recursive: true }).map((file) => join(dir, String(file))))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));

for (const dir of ['src', 'cli', 'aggregates', 'ports', 'projections', 'read-models']) rmSync(join(out, dir), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints,
  outdir: out,
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
// src/db/migrate.ts reads the migrations relative to itself: dist/read-models/migrations.
cpSync(join(root, 'read-models/migrations'), join(out, 'read-models/migrations'), { recursive: true });
process.stdout.write(`built ${entryPoints.length} files into dist/ in ${Date.now() - started} ms\n`);
const consoleBytes = await buildConsole(root);
process.stdout.write(`built the web console into dist/console (${Math.round(consoleBytes / 1024)} kB with its source map)\n`);

// A migrated PGlite folder that a first start copies (src/platform.ts): creating one is most of
// a first start's time. PLATFORM_BUILD_NO_SEED=1 skips it.
// The seed is made again only when the migrations changed (their hash is kept beside it).
const migrations = join(root, 'read-models/migrations');
const hash = createHash('sha256');
for (const file of readdirSync(migrations).sort()) hash.update(file).update(readFileSync(join(migrations, file)));
const stamp = hash.digest('hex');
const seed = join(out, 'pglite-seed');
const stampFile = join(out, 'pglite-seed.stamp');
const current = existsSync(stampFile) && existsSync(seed) && readFileSync(stampFile, 'utf8') === stamp;
if (!process.env.PLATFORM_BUILD_NO_SEED && !current) {
  const seedStarted = Date.now();
  rmSync(seed, { recursive: true, force: true });
  const { createPgliteDb } = await import(pathToFileURL(join(out, 'src/db/pglite.db.js')).href);
  const { migrate } = await import(pathToFileURL(join(out, 'src/db/migrate.js')).href);
  const db = await createPgliteDb(seed);
  await migrate(db);
  await db.close();
  writeFileSync(stampFile, stamp);
  process.stdout.write(`prepared the PGlite seed in dist/pglite-seed in ${Date.now() - seedStarted} ms\n`);
}
