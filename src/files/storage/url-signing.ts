import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DownloadHeaders } from './storage.port.js';

/** The route the local adapter's signed URLs point at (src/files/download.routes.ts serves it). */
export const SIGNED_PREFIX = '/api/v2/files/signed/';

/** The string a URL's signature covers: method, path, expiry and the response headers it sets. */
const signedText = (method: string, path: string, expires: number, h: DownloadHeaders) => [method, path, String(expires), h.contentType, h.disposition].join('\n');

const mac = (secret: Buffer, text: string) => createHmac('sha256', secret).update(text).digest('base64url');

export interface SignedQuery {
  expires: string;
  ct: string;
  cd: string;
  sig: string;
}

/** The path and query of a GET of `key` valid until `expires` (epoch seconds). */
export function signPath(secret: Buffer, key: string, headers: DownloadHeaders, expires: number): string {
  const path = SIGNED_PREFIX + key;
  const sig = mac(secret, signedText('GET', path, expires, headers));
  const q = new URLSearchParams({ expires: String(expires), ct: headers.contentType, cd: headers.disposition, sig });
  return `${path}?${q.toString()}`;
}

export type Verdict = { ok: true; headers: DownloadHeaders } | { ok: false; reason: 'expired' | 'bad-signature' };

/**
 * Checks a signed request: the signature first (so a changed expiry is a bad signature, not a
 * longer life), then the expiry against `nowMs`. Comparison in constant time.
 */
export function verifyPath(secret: Buffer, method: string, path: string, q: Partial<SignedQuery>, nowMs: number): Verdict {
  const expires = Number(q.expires);
  if (!q.sig || !q.ct || !q.cd || !Number.isSafeInteger(expires)) return { ok: false, reason: 'bad-signature' };
  const headers = { contentType: q.ct, disposition: q.cd };
  const want = Buffer.from(mac(secret, signedText(method === 'HEAD' ? 'GET' : method, path, expires, headers)));
  const got = Buffer.from(q.sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return { ok: false, reason: 'bad-signature' };
  if (nowMs >= expires * 1000) return { ok: false, reason: 'expired' };
  return { ok: true, headers };
}
