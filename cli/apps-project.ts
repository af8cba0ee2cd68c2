import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { deployManifestSchema, type DeployManifest } from '../aggregates/app-deploy/deploy.manifest.js';

/** `platform-app.json`: the project of an app's functions (docs/apps.md, "The app developer's CLI"). */
export interface AppProject {
  appUuid: string | null;
  entry: string;
  manifest: DeployManifest;
}

export const PROJECT_FILE = 'platform-app.json';

const FUNCTION = `/**
 * An app function: \`input\` is what the caller sent, \`ctx\` the host API (docs/apps.md, "Host API"):
 * ctx.records, ctx.state, ctx.secrets, ctx.settings, ctx.fetch, ctx.log.
 */
export async function hello(input, ctx) {
  ctx.log.info('hello called with', input);
  return { greeting: \`Hello, \${(input && input.name) || 'world'}\`, company: ctx.company.uuid };
}
`;

const TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hello } from '../src/index.js';

// A stand-in for the host API: enough for this function.
const ctx = { company: { uuid: 'c1' }, app: { uuid: 'a1' }, job: null, settings: {}, log: { info() {}, warn() {}, error() {}, debug() {} } };

test('hello greets by name', async () => {
  assert.deepEqual(await hello({ name: 'Ada' }, ctx), { greeting: 'Hello, Ada', company: 'c1' });
});
`;

/** Scaffolds a project in `dir`: the manifest, one function and its test (node --test). */
export function initProject(dir: string, appUuid: string | null): string[] {
  const files: [string, string][] = [
    [PROJECT_FILE, `${JSON.stringify({ appUuid, entry: 'src/index.js', manifest: { functions: [{ name: 'hello' }], scopes: [] } } satisfies AppProject, null, 2)}\n`],
    ['src/index.js', FUNCTION],
    ['test/hello.test.js', TEST],
    ['package.json', `${JSON.stringify({ type: 'module', private: true, scripts: { test: 'node --test test/' } }, null, 2)}\n`],
  ];
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    if (existsSync(path)) throw new Error(`${path} exists: init writes into an empty folder`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    written.push(name);
  }
  return written;
}

export function readProject(dir: string): AppProject {
  const path = join(dir, PROJECT_FILE);
  if (!existsSync(path)) throw new Error(`no ${PROJECT_FILE} in ${resolve(dir)}: run \`platform apps init\` first`);
  const raw = JSON.parse(readFileSync(path, 'utf8')) as AppProject;
  const manifest = deployManifestSchema.safeParse(raw.manifest);
  if (!manifest.success) throw new Error(`${PROJECT_FILE}: the manifest is not valid: ${manifest.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  return { ...raw, manifest: manifest.data };
}

export function writeAppUuid(dir: string, appUuid: string) {
  const path = join(dir, PROJECT_FILE);
  writeFileSync(path, `${JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), appUuid }, null, 2)}\n`);
}

/**
 * Bundles the entry with esbuild into one CommonJS file (`dist/bundle.js`), after checking that
 * the entry exports every function the manifest names. Answers the bundle's text.
 */
export async function buildProject(dir: string): Promise<{ code: string; project: AppProject; path: string }> {
  const project = readProject(dir);
  const entry = resolve(dir, project.entry);
  const probe = await build({ entryPoints: [entry], bundle: true, write: false, format: 'esm', platform: 'neutral', metafile: true, logLevel: 'silent', outfile: 'probe.js' });
  const exported = Object.values(probe.metafile.outputs)[0]?.exports ?? [];
  const missing = project.manifest.functions.map((f) => f.name).filter((n) => !exported.includes(n));
  if (missing.length) throw new Error(`the manifest names functions ${project.entry} does not export: ${missing.join(', ')} (it exports: ${exported.join(', ') || 'nothing'})`);
  const path = join(dir, 'dist', 'bundle.js');
  const out = await build({ entryPoints: [entry], bundle: true, write: false, format: 'cjs', platform: 'neutral', target: 'es2020', logLevel: 'silent', outfile: path });
  const code = out.outputFiles[0]!.text;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, code);
  return { code, project, path };
}
