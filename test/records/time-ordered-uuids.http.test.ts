import { describe, expect, it } from 'vitest';
import { timeOrderedUuids } from '../../src/db/time-ordered-uuid.js';
import { useAppWithAdmin } from '../support/test-app.js';
import { aRecord, anObjectWith } from './records-fixtures.js';

// Records the server names, and requests that bring no X-Request-Id, get time-ordered uuids
// (version 7, ADR 0018): later ones sort after earlier ones, so their index keys are appended.
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ctx = useAppWithAdmin();

describe('timeOrderedUuid', () => {
  it('makes version-7 uuids that sort in the order they were made, within a millisecond and when the clock steps back', () => {
    const clock = [5_000, 5_000, 5_000, 5_001, 4_000, 4_000, 5_002, 2 ** 46, ...Array.from({ length: 5_000 }, () => 2 ** 46 + 1)];
    const next = timeOrderedUuids(() => clock.shift()!);
    const ids = Array.from({ length: clock.length }, () => next());
    for (const id of ids) expect(id).toMatch(V7);
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `${ids[i - 1]} then ${ids[i]}`).toBe(true);
    // The first 48 bits are the millisecond (a clock stepping back keeps the last one).
    expect(ids.slice(0, 7).map((id) => parseInt(id.replaceAll('-', '').slice(0, 12), 16))).toEqual([5_000, 5_000, 5_000, 5_001, 5_001, 5_001, 5_002]);
  });
});

describe('time-ordered uuids', () => {
  it('names new records with version-7 uuids that sort in the order they were made', async () => {
    const obj = await anObjectWith(ctx.t.app, ctx.admin, { title: { type: 'string', format: 'text' } });
    const made: string[] = [];
    for (let i = 0; i < 20; i++) made.push((await aRecord(ctx.t.app, ctx.admin, obj.name, { title: `r${i}` })).uuid);
    for (const uuid of made) expect(uuid).toMatch(V7);
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(20);
    // The first 48 bits are the millisecond it was made.
    const ms = parseInt(made[0]!.replaceAll('-', '').slice(0, 12), 16);
    expect(Math.abs(ms - Date.now())).toBeLessThan(60_000);
  });

  it('keeps a uuid the client gives', async () => {
    const obj = await anObjectWith(ctx.t.app, ctx.admin, { title: { type: 'string', format: 'text' } });
    const given = '3f0c1c2e-8f4b-4c7a-9d3e-2b1a0f9e8d7c';
    expect((await aRecord(ctx.t.app, ctx.admin, obj.name, { title: 'x' }, { uuid: given })).uuid).toBe(given);
  });

  it('gives a request without X-Request-Id a version-7 id, and keeps a given one', async () => {
    const mine = await ctx.t.app.inject({ method: 'GET', url: '/api/v2/objects', headers: ctx.admin.headers });
    const first = String(mine.headers['x-request-id']);
    const next = String((await ctx.t.app.inject({ method: 'GET', url: '/api/v2/objects', headers: ctx.admin.headers })).headers['x-request-id']);
    expect(first).toMatch(V7);
    expect(next > first).toBe(true);
    const given = await ctx.t.app.inject({ method: 'GET', url: '/api/v2/objects', headers: { ...ctx.admin.headers, 'x-request-id': 'trace-abc-123' } });
    expect(given.headers['x-request-id']).toBe('trace-abc-123');
  });
});
