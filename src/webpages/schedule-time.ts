import { invalid } from '../../aggregates/kernel/errors.js';

/**
 * A publishAt / unpublishAt from the body or the query: epoch seconds as an integer (a JSON
 * number or a string of digits). Anything else is a 400 naming the field; the decider refuses
 * a time in the past.
 */
export function scheduleTime(name: 'publishAt' | 'unpublishAt', body: unknown, query: Record<string, unknown>): number | undefined {
  const fromBody = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
  const raw = fromBody ?? query[name];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = typeof raw === 'string' && /^\d{1,12}$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(`body.${name}`, `body.${name}: ${JSON.stringify(raw).slice(0, 40)} is not a time in epoch seconds`, `Send ${name} as an integer number of seconds since 1970 (not milliseconds), in the future`, 'INVALID_DATE');
  }
  if (value > 100_000_000_000) throw invalid(`body.${name}`, `body.${name}: ${value} looks like milliseconds`, `Send ${name} in seconds: ${Math.floor(value / 1000)}`, 'INVALID_DATE');
  return value;
}
