import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { projections } from '../projections/index.js';

const doc = readFileSync(resolve(import.meta.dirname, '../docs/events.md'), 'utf8');

describe('docs/events.md', () => {
  it('names every event type a read model is built from', () => {
    const types = [...new Set(projections.flatMap((p) => p.handles))].sort();
    expect(types.length).toBeGreaterThan(10);
    expect(types.filter((t) => !doc.includes(`\`${t}\``))).toEqual([]);
  });
});
