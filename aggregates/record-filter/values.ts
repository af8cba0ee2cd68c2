/**
 * Value rules shared by record validation, the filter evaluator and the SQL index engine, so the
 * three agree on what equal, smaller and "contains" mean.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** A calendar date `YYYY-MM-DD` (years 0001-9999), or undefined. */
export function canonicalDate(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const m = DATE.exec(raw);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return undefined;
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCDate() !== d || back.getUTCMonth() !== mo - 1) return undefined;
  return raw;
}

/**
 * An instant as `YYYY-MM-DDTHH:mm:ss.sssZ` (UTC, years 0001-9999), so that text order is time
 * order. Takes ISO 8601 with `Z` or an offset, a bare date (midnight UTC), or epoch milliseconds
 * when `allowNumber`. A time without a zone is refused: its meaning would depend on the server.
 */
export function canonicalDateTime(raw: unknown, allowNumber = false): string | undefined {
  let ms: number;
  if (typeof raw === 'number' && allowNumber) {
    if (!Number.isInteger(raw)) return undefined;
    ms = raw;
  } else if (typeof raw === 'string') {
    if (canonicalDate(raw)) ms = Date.parse(`${raw}T00:00:00.000Z`);
    else {
      const m = DATETIME.exec(raw);
      if (!m) return undefined;
      if (Number(m[2]) < 1 || Number(m[2]) > 12 || Number(m[3]) < 1 || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59) return undefined;
      if (!canonicalDate(`${m[1]}-${m[2]}-${m[3]}`)) return undefined;
      ms = Date.parse(raw.replace(' ', 'T'));
    }
  } else return undefined;
  if (!Number.isFinite(ms)) return undefined;
  const out = new Date(ms);
  if (Number.isNaN(out.getTime())) return undefined;
  const year = out.getUTCFullYear();
  if (year < 1 || year > 9999) return undefined;
  return out.toISOString();
}

/** Epoch milliseconds of an instant given as a number or an ISO 8601 string (see canonicalDateTime). */
export function epochMillis(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : undefined;
  const iso = canonicalDateTime(raw);
  return iso === undefined ? undefined : Date.parse(iso);
}

/** Case folding for contains / startsWith / endsWith: both sides folded the same way, here, once. */
export const fold = (s: string) => s.toLowerCase();

/**
 * Text order: by Unicode code point, case-sensitive (PostgreSQL's "C" collation over UTF-8).
 * JavaScript's `<` compares UTF-16 units, which differs only between astral characters and
 * U+E000-U+FFFF.
 */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y >= 0xe000 : x >= 0xe000)) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Why a string cannot be stored, or undefined: PostgreSQL refuses NUL in text and jsonb, and a
 * lone surrogate would silently turn into U+FFFD on the way in.
 */
export function badString(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  // A high surrogate not followed by a low one, or a low one not preceded by a high one.
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

/** Object keys that would reach an object's prototype when copied naively. */
export const pollutingKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
