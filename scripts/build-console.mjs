// The web console (docs/console.md): console/main.tsx and what it imports (Preact, the typed
// client) bundled by esbuild into dist/console/, with console/index.html and console.css beside
// it. Run by scripts/build.mjs (so `npm ci` builds it) and by the browser tests before they start
// a server. Nothing is fetched at run time: the page loads only files of dist/console.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Builds the console into `<root>/dist/console`; answers the bundle's size in bytes. */
export async function buildConsole(root) {
  const out = join(root, 'dist', 'console');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['console/main.tsx'],
    bundle: true,
    outfile: join(out, 'console.js'),
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'console.css']) copyFileSync(join(root, 'console', file), join(out, file));
  return Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
}
