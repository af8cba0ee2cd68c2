import { describe, expect, it } from 'vitest';
import { shortLived } from '../src/cache/short-lived.js';

describe('a short-lived cache load', () => {
  it('shares one read among callers that miss at once, and keeps its answer', async () => {
    const cache = shortLived<number>({ ttlMs: 1000 });
    let reads = 0;
    let release!: (n: number) => void;
    const read = () => new Promise<number>((r) => { reads++; release = r; });
    const waiting = [cache.load('t', 'k', 0, read), cache.load('t', 'k', 0, read)];
    release(7);
    expect(await Promise.all(waiting)).toEqual([7, 7]);
    expect(await cache.load('t', 'k', 10, read)).toBe(7);
    expect(reads).toBe(1);
  });

  it('does not keep a read that a forget of its scope overtook, nor what `keep` refuses', async () => {
    const cache = shortLived<number>({ ttlMs: 1000 });
    let release!: (n: number) => void;
    const slow = cache.load('t', 'k', 0, () => new Promise<number>((r) => (release = r)));
    cache.forget('t');
    release(1);
    expect(await slow).toBe(1);
    expect(cache.get('t', 'k', 1)).toBeUndefined();
    expect(await cache.load('t', 'k', 2, async () => 2)).toBe(2);
    expect(cache.get('t', 'k', 3)).toBe(2);
    const none = shortLived<number>({ ttlMs: 1000 });
    expect(await none.load('t', 'k', 0, async (): Promise<number | null> => null, (v): v is number => v !== null)).toBeNull();
    expect(none.get('t', 'k', 1)).toBeUndefined();
  });
});
