import { describe, expect, it } from 'vitest';
import type { FusedWrite, Projection } from '../projections/projection.js';
import { fusedStatements, fusedTogetherOf, fusedWriteOf, pendingEvents, togetherStatement, type FusableAppend } from '../src/event-store/postgres.fused-writes.js';
import { anEvent } from './support/builders.js';

const write = (name: string, accepts: FusedWrite['accepts']): FusedWrite => ({ name, accepts, sql: () => ({ ctes: 'x as (select 1)', check: '0' }), input: () => '[]' });
const projection = (name: string, handles: string[], withAppend?: FusedWrite[]): Projection => ({ name, tables: [], handles, apply: async () => {}, withAppend });
const which = (fused: Parameters<typeof fusedWriteOf>[0], a: FusableAppend) => fusedWriteOf(fused, a)?.index ?? -1;
const append = (over: Partial<FusableAppend>): FusableAppend => ({ tenant: 't', streamId: 's-1', events: [anEvent('Made'), anEvent('Changed')], expected: 'no_stream', ...over });

describe('fused writes: which appends the append statement writes for a projection', () => {
  it('number the events from the revision the append expects, and give the last one the writer state', () => {
    expect(pendingEvents(append({ expected: 'no_stream' }))!.map((e) => e.revision)).toEqual([0, 1]);
    expect(pendingEvents(append({ expected: -1 }))!.map((e) => e.revision)).toEqual([0, 1]);
    const at4 = pendingEvents(append({ expected: 4, stateAfter: { n: 2 } }))!;
    expect(at4.map((e) => [e.revision, e.tenant, e.streamId, e.type, e.stateAfter])).toEqual([[5, 't', 's-1', 'Made', undefined], [6, 't', 's-1', 'Changed', { n: 2 }]]);
    // Revisions unknown before the append: never fused.
    expect(pendingEvents(append({ expected: 'any' }))).toBeNull();
    expect(pendingEvents(append({ expected: 'stream_exists' }))).toBeNull();
  });

  it('take an append only when one write accepts all its events, its projection alone handles them, and it has no hook', () => {
    const creates = write('creates', (e) => e.type === 'Made' && e.revision === 0);
    const both = write('both', (e) => e.stateAfter !== undefined || e.type === 'Made');
    const fused = fusedStatements([projection('mine', ['Made', 'Changed', 'Shared'], [creates, both]), projection('other', ['Shared'])]);
    expect(fused.map((f) => f.write.name)).toEqual(['creates', 'both']);
    expect(fused[0]!.text).toMatch(/^with req as \(/);
    expect(fused[0]!.text).toContain('x as (select 1)');

    expect(which(fused, append({ events: [anEvent('Made')] }))).toBe(0);
    expect(which(fused, append({ events: [anEvent('Made'), anEvent('Changed')], stateAfter: {} }))).toBe(1);
    // The write gets the events it judged, numbered and with the state.
    expect(fusedWriteOf(fused, append({ events: [anEvent('Made'), anEvent('Changed')], expected: 2, stateAfter: { s: 1 } }))!.events.map((e) => [e.revision, e.stateAfter])).toEqual([[3, undefined], [4, { s: 1 }]]);
    // `both` refuses the last event without a state; `creates` refuses `Changed`.
    expect(which(fused, append({ events: [anEvent('Made'), anEvent('Changed')] }))).toBe(-1);
    expect(which(fused, append({ events: [anEvent('Made')], inTransaction: async () => {} }))).toBe(-1);
    expect(which(fused, append({ events: [anEvent('Made')], expected: 'any' }))).toBe(-1);
    // Another projection handles `Shared`: it must see the event in the transaction.
    expect(which(fused, append({ events: [anEvent('Shared')], stateAfter: {} }))).toBe(-1);
    expect(which([], append({ events: [anEvent('Made')] }))).toBe(-1);
  });

  it('take a multi-stream append only when writes take every one of its streams, and write them in one statement, all or none', () => {
    const param = (name: string): FusedWrite['sql'] => (p) => ({ ctes: `${name} as (select ${p})`, check: '0' });
    const creates = { ...write('creates', (e) => e.type === 'Made' && e.revision === 0), sql: param('made') };
    const links = { ...write('links', (e) => e.type === 'Linked' && e.revision === 0), sql: param('linked') };
    const fused = fusedStatements([projection('mine', ['Made'], [creates]), projection('links', ['Linked'], [links]), projection('other', ['Shared'])]);
    const together = (types: string[], over: Partial<FusableAppend> = {}) =>
      fusedTogetherOf(fused, { ...append({ events: [anEvent('Made')], ...over }), together: types.map((t, i) => ({ streamId: `s-${i + 2}`, events: [anEvent(t)], expected: 'no_stream' as const })) });
    const taken = together(['Linked', 'Made'])!;
    expect([...taken.keys()].sort()).toEqual([0, 1]);
    expect(taken.get(0)!.map((e) => e.streamId)).toEqual(['s-1', 's-3']);
    expect(taken.get(1)!.map((e) => [e.streamId, e.revision])).toEqual([['s-2', 0]]);
    // A stream no write takes, a hook, or a single-stream append: not this way.
    expect(together(['Linked', 'Shared'])).toBeNull();
    expect(together(['Linked'], { inTransaction: async () => {} })).toBeNull();
    expect(fusedTogetherOf(fused, append({ events: [anEvent('Made')] }))).toBeNull();
    const st = togetherStatement(fused, [0, 1]);
    expect(st.name).toBe('append_together_0_1');
    // Each write reads its own parameter after the appends' ($1), and the statement fails unless every stream moved.
    expect(st.text).toContain('made as (select $2)');
    expect(st.text).toContain('linked as (select $3)');
    expect(st.text).toMatch(/\(select count\(\*\) from heads\) <> \(select count\(\*\) from req\)/);
  });
});
