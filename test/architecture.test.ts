import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

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

  it('deciders use no clock and no random ids', () => {
    const offences = files('aggregates').filter((f) => /Date\.now\(|new Date\(\)|randomUUID|Math\.random/.test(readFileSync(join(root, f), 'utf8')));
    expect(offences).toEqual([]);
  });
});
