import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changesBetween, redact, REDACTED } from '../../src/history/resource-history.js';

const json = fc.jsonValue();

describe('changesBetween (the changes of a history entry)', () => {
  it('nothing changed between a rendering and itself', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), json), (r) => {
      expect(changesBetween(r, r)).toEqual({});
    }));
  });
  it('a field that differs is listed with its before and after; bookkeeping fields are not', () => {
    expect(changesBetween({ name: 'a', revision: 1, updatedAt: 5, deletedAt: null }, { name: 'b', revision: 2, updatedAt: 6, deletedAt: 7 })).toEqual({
      name: { before: 'a', after: 'b' },
      deletedAt: { before: null, after: 7 },
    });
    expect(changesBetween(null, { name: 'a', createdBy: { uuid: 'x' } })).toEqual({ name: { before: null, after: 'a' } });
  });
  it('applying the changes to the before gives the after (apart from bookkeeping fields)', () => {
    const record = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), json);
    fc.assert(
      fc.property(record, record, (before, after) => {
        const changes = changesBetween(before, after);
        const rebuilt: Record<string, unknown> = { ...before };
        for (const [k, c] of Object.entries(changes)) rebuilt[k] = c.after;
        expect(changesBetween(rebuilt, after)).toEqual({});
      }),
    );
  });
});

describe('redact (the data of a history entry)', () => {
  it('replaces every value under a secret-like key, at any depth, and keeps the rest', () => {
    expect(
      redact({ name: 'apiKey', ciphertext: 'v1.abc', credentials: { signingSecret: 's', clientId: 'id', clientSecretHash: 'h' }, secretRotated: true, tokens: 'x', list: [{ password: 'p' }] }),
    ).toEqual({ name: 'apiKey', ciphertext: REDACTED, credentials: { signingSecret: REDACTED, clientId: 'id', clientSecretHash: REDACTED }, secretRotated: true, tokens: REDACTED, list: [{ password: REDACTED }] });
  });
  it('no string under a secret-like key survives', () => {
    const key = fc.oneof(fc.constantFrom('secret', 'clientSecret', 'ciphertext', 'tokens', 'passwordHash', 'accessToken'), fc.string());
    const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.string(), fc.integer(), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
    })).node;
    const leaks = (v: unknown, k = ''): boolean =>
      /secret|ciphertext|token|password|hash/i.test(k) && v !== null && typeof v !== 'boolean' ? v !== REDACTED
      : Array.isArray(v) ? v.some((x) => leaks(x))
      : v !== null && typeof v === 'object' ? Object.entries(v).some(([kk, vv]) => leaks(vv, kk))
      : false;
    fc.assert(fc.property(value, (v) => {
      expect(leaks(redact(v))).toBe(false);
    }));
  });
});
