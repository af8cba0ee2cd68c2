import * as crypto from 'node:crypto';

type Encoding = 'hex' | 'base64url';
type OneShot = (algorithm: string, data: string, outputEncoding: Encoding) => string;

/**
 * SHA-256 of a string with `crypto.hash` (one call, no Hash object: Node >= 20.12) or, on an
 * older Node that package.json's engines still admits (>= 20.11), createHash (ADR 0012).
 */
export function makeSha256(oneShot: OneShot | undefined): (data: string, encoding?: Encoding) => string {
  if (oneShot) return (data, encoding = 'hex') => oneShot('sha256', data, encoding);
  return (data, encoding = 'hex') => crypto.createHash('sha256').update(data).digest(encoding);
}

export const sha256 = makeSha256((crypto as { hash?: OneShot }).hash);
