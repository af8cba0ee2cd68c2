import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(root, path)).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative import of a file, as a path from the repository root. */
function imports(file: string): { spec: string; target: string }[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return specs.map((spec) => ({ spec, target: spec.startsWith('.') ? relative(root, resolve(root, dirname(file), spec)) : spec }));
}

const topOf = (target: string) => target.split('/')[0]!;

/** The names each relative `import { ... }` (or `export { ... } from`) of a file takes, with its target from the root. */
function namedImports(file: string): { names: string[]; target: string }[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"](\.[^'"]+)['"]/g)].map((m) => ({
    names: m[1]!.split(',').map((n) => n.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!),
    target: relative(root, resolve(root, dirname(file), m[2]!)).replace(/\.js$/, '.ts'),
  }));
}

/** The string literals of a file (each template's text parts too), comments left out. */
function stringsOf(file: string): { text: string; line: number }[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { text: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      found.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

describe('the one-way rule', () => {
  it('aggregates/ imports nothing of ours outside itself, and no I/O modules', () => {
    const offences = files('aggregates').flatMap((f) =>
      imports(f)
        .filter(({ spec, target }) => (spec.startsWith('.') ? topOf(target) !== 'aggregates' : /^(node:|pg|fastify|@electric-sql)/.test(spec)))
        .map(({ spec }) => `${f} -> ${spec}`),
    );
    expect(offences).toEqual([]);
  });

  it('projections/ imports only aggregates/, ports/ and itself', () => {
    const offences = files('projections').flatMap((f) =>
      imports(f)
        .filter(({ spec, target }) => spec.startsWith('.') && !['aggregates', 'ports', 'projections'].includes(topOf(target)))
        .map(({ spec }) => `${f} -> ${spec}`),
    );
    expect(offences).toEqual([]);
  });

  it('ports/ imports nothing', () => {
    expect(files('ports').flatMap((f) => imports(f).map(({ spec }) => `${f} -> ${spec}`))).toEqual([]);
  });

  it('read-models/ imports no src/ (and so no HTTP)', () => {
    const offences = files('read-models').flatMap((f) =>
      imports(f)
        .filter(({ spec, target }) => (spec.startsWith('.') ? topOf(target) === 'src' : /^(fastify|@fastify)/.test(spec)))
        .map(({ spec }) => `${f} -> ${spec}`),
    );
    expect(offences).toEqual([]);
  });

  it('aggregates/ strings quote no HTTP route: a route belongs to the HTTP edge', () => {
    const route = /\/api\/v\d|\b(GET|POST|PUT|PATCH|DELETE|HEAD) \/[\w{$]/;
    const offences = files('aggregates').flatMap((f) => stringsOf(f).filter((s) => route.test(s.text)).map((s) => `${f}:${s.line} ${JSON.stringify(s.text)}`));
    expect(offences).toEqual([]);
  });

  it('read-models/ take the Sql type from ports/sql.ts, its one home', () => {
    const offences = files('read-models').flatMap((f) =>
      namedImports(f)
        .filter(({ names, target }) => names.includes('Sql') && target !== 'ports/sql.ts')
        .map(({ target }) => `${f} -> ${target}`),
    );
    expect(offences).toEqual([]);
  });

  it('deciders use no clock and no random ids', () => {
    const offences = files('aggregates').filter((f) => /Date\.now\(|new Date\(\)|randomUUID|Math\.random/.test(readFileSync(join(root, f), 'utf8')));
    expect(offences).toEqual([]);
  });
});

/** Every static import and re-export of a file: what it names, and whether it is type-only (`import type`). */
function staticImports(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g)].map((m) => ({ spec: m[2]!, typeOnly: Boolean(m[1]) }));
}

/** Every import of a file with whether it is type-only (`import type`), relative ones as a path from the root. */
function importStatements(file: string): { target: string; typeOnly: boolean }[] {
  return staticImports(file)
    .filter(({ spec }) => spec.startsWith('.'))
    .map(({ spec, typeOnly }) => ({ target: relative(root, resolve(root, dirname(file), spec)).replace(/\.js$/, '.ts'), typeOnly }));
}

// src/ folders that are the shell, not features: they may be used by every feature.
const shell = new Set(['auth', 'cache', 'commands', 'db', 'dev', 'event-store', 'http', 'mail', 'outbound', 'projections', 'reactors']);
const featureOf = (path: string) => {
  const [top, dir, name] = path.split('/');
  return top === 'src' && name !== undefined && !shell.has(dir!) ? dir! : null;
};

describe('one way to do each thing', () => {
  it("no feature imports another feature's service except as a type: the app's wiring hands it over", () => {
    const offences = files('src').flatMap((f) => {
      const mine = featureOf(f) ?? (f.startsWith('src/auth/') ? 'auth' : null);
      return importStatements(f)
        .filter(({ target, typeOnly }) => !typeOnly && target.endsWith('.service.ts') && target.split('/')[1] !== mine && f !== 'src/app.ts')
        .map(({ target }) => `${f} -> ${target}`);
    });
    expect(offences).toEqual([]);
  });

  it('every feature of src/ registers itself by its own *.module.ts, which the app registers', () => {
    const app = readFileSync(join(root, 'src/app.ts'), 'utf8');
    const features = readdirSync(join(root, 'src')).filter((d) => statSync(join(root, 'src', d)).isDirectory() && !shell.has(d));
    const missing = features.filter((d) => !readdirSync(join(root, 'src', d)).some((n) => n.endsWith('.module.ts')) || !app.includes(`./${d}/${d}.module.js`));
    expect(missing).toEqual([]);
    expect(app.includes('./auth/auth.module.js')).toBe(true);
  });

  it('only the command handler appends: every write goes through handleCommand', () => {
    const offences = files('src').filter((f) => !f.startsWith('src/event-store/') && f !== 'src/commands/command-handler.ts' && /\bstore\.append\(/.test(readFileSync(join(root, f), 'utf8')));
    expect(offences).toEqual([]);
  });

  it('a unique violation is caught in one place: mapUniqueViolations (src/db/unique-violation.ts)', () => {
    const offences = serverFiles().filter((f) => f !== 'src/db/unique-violation.ts' && /\bisUniqueViolation\b|['"]23505['"]/.test(readFileSync(join(root, f), 'utf8')));
    expect(offences).toEqual([]);
  });

  it('every events file owns its stream prefix, and no projection names one literally', () => {
    const eventsFiles = files('aggregates').filter((f) => f.endsWith('.events.ts'));
    const prefixes = eventsFiles.flatMap((f) => [...readFileSync(join(root, f), 'utf8').matchAll(/_STREAM_PREFIX = '([^']+)'/g)].map((m) => m[1]!));
    const withoutPrefix = eventsFiles.filter((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      return /export const \w+Stream = /.test(text) && !/_STREAM_PREFIX = '/.test(text);
    });
    expect(withoutPrefix).toEqual([]);
    expect(prefixes.length).toBeGreaterThan(10);
    const offences = files('projections').flatMap((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      return prefixes.filter((p) => new RegExp(`['"\`]${p}(['"\`]|\\$\\{)`).test(text)).map((p) => `${f} names '${p}'`);
    });
    expect(offences).toEqual([]);
  });

  it('has no import cycle', () => {
    const graph = new Map<string, string[]>();
    for (const dir of ['aggregates', 'ports', 'projections', 'read-models', 'src']) for (const f of files(dir)) graph.set(f, importStatements(f).map((i) => i.target));
    // Tarjan's strongly connected components: a component of more than one file is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    let next = 0;
    const visit = (v: string) => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const v of graph.keys()) if (!index.has(v)) visit(v);
    expect(cycles).toEqual([]);
  });
});

// The server's code: what runs in the API process (client/, console/ and cli/ are callers of the API, not part of it).
const serverFiles = () => ['aggregates', 'ports', 'projections', 'read-models', 'src'].flatMap((dir) => files(dir));
const OUTBOUND = 'src/outbound/';
// Packages and built-ins that open HTTP connections.
const httpClients = /^(undici|node:https?|https?|node:http2|http2|axios|got|node-fetch|ky)$/;

describe('outbound HTTP in one place: src/outbound/', () => {
  it('no file of the server outside src/outbound/ imports an HTTP client (types aside) or calls fetch', () => {
    const offences = serverFiles()
      .filter((f) => !f.startsWith(OUTBOUND))
      .flatMap((f) => {
        const text = readFileSync(join(root, f), 'utf8');
        const dynamic = [...text.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]/g)].map((m) => ({ spec: m[1]!, typeOnly: false }));
        const clients = [...staticImports(f), ...dynamic].filter(({ spec, typeOnly }) => !typeOnly && httpClients.test(spec)).map(({ spec }) => `${f} imports ${spec}`);
        const fetches = /(?<![\w$.])fetch\s*\(|\b(?:globalThis|window|self)\.fetch\b/.test(text) ? [`${f} calls fetch`] : [];
        return [...clients, ...fetches];
      });
    expect(offences).toEqual([]);
  });

  it('src/outbound/ is entered by its index.ts only', () => {
    const offences = serverFiles()
      .filter((f) => !f.startsWith(OUTBOUND))
      .flatMap((f) => importStatements(f).filter(({ target }) => target.startsWith(OUTBOUND) && target !== `${OUTBOUND}index.ts`).map(({ target }) => `${f} -> ${target}`));
    expect(offences).toEqual([]);
  });

  it("apps reach the webhooks feature by its module only (webhooks.module.ts), never by webhooks' internals", () => {
    const offences = files('src/apps').flatMap((f) =>
      importStatements(f)
        .filter(({ target }) => target.startsWith('src/webhooks/') && target !== 'src/webhooks/webhooks.module.ts')
        .map(({ target }) => `${f} -> ${target}`),
    );
    expect(offences).toEqual([]);
  });
});

// Every file of ours that may import the engine: the server, its tests, benches, scripts and the CLI.
const allOurFiles = () => ['aggregates', 'ports', 'projections', 'read-models', 'src', 'test', 'bench', 'scripts', 'cli'].flatMap((dir) => files(dir));
const ENGINE = 'read-models/record-index/';

describe('the record-list engine in one place: read-models/record-index/', () => {
  it('is entered by its index.ts only: no file outside the folder imports another of its files', () => {
    const offences = allOurFiles()
      .filter((f) => !f.startsWith(ENGINE))
      .flatMap((f) =>
        imports(f)
          .filter(({ spec }) => spec.startsWith('.'))
          .map(({ target }) => target.replace(/\.js$/, '.ts'))
          .filter((target) => target.startsWith(ENGINE) && target !== `${ENGINE}index.ts`)
          .map((target) => `${f} -> ${target}`),
      );
    expect(offences).toEqual([]);
  });

  it("read-models/ imports no node: module but the slice runner's timers (record-index/in-slices.ts, a documented exception)", () => {
    const offences = files('read-models').flatMap((f) =>
      imports(f)
        .filter(({ spec }) => /^node:/.test(spec) && !(f === `${ENGINE}in-slices.ts` && spec === 'node:timers/promises'))
        .map(({ spec }) => `${f} -> ${spec}`),
    );
    expect(offences).toEqual([]);
  });

  it('aggregates/ holds the filter language only (filter.*.ts and values.ts in record-filter/), none of the engine', () => {
    const engineNames = new Set(files(ENGINE).map((f) => f.slice(ENGINE.length)).filter((name) => name !== 'index.ts'));
    expect(engineNames.size).toBeGreaterThan(10);
    const misplaced = files('aggregates').filter((f) => engineNames.has(f.split('/').at(-1)!));
    const notLanguage = files('aggregates/record-filter').filter((f) => !/^aggregates\/record-filter\/(filter\.[a-z-]+|values)\.ts$/.test(f));
    expect([...new Set([...misplaced, ...notLanguage])]).toEqual([]);
  });
});
