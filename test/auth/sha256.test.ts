import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeSha256, sha256 } from '../../src/auth/sha256.js';

// src/auth/sha256.ts: crypto.hash where Node has it (>= 20.12), createHash on 20.11 (ADR 0012).
// Both branches give createHash's digest, in hex and base64url.
const reference = (data: string, encoding: 'hex' | 'base64url') => createHash('sha256').update(data).digest(encoding);
const oneShot = (algorithm: string, data: string, encoding: 'hex' | 'base64url') => createHash(algorithm).update(data).digest(encoding);

describe('sha256', () => {
  it.each([
    ['crypto.hash', makeSha256(oneShot)],
    ['the createHash fallback', makeSha256(undefined)],
    ['this Node', sha256],
  ])('%s agrees with createHash', (_branch, hash) => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(hash(s)).toBe(reference(s, 'hex'));
        expect(hash(s, 'base64url')).toBe(reference(s, 'base64url'));
      }),
      { numRuns: 50 },
    );
    const token = randomBytes(32).toString('base64url');
    expect(hash(token)).toBe(reference(token, 'hex'));
  });
});
