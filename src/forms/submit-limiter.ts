import { DomainError } from '../../aggregates/kernel/errors.js';

const MAX_KEYS = 100_000;

/**
 * A fixed-window counter per key (the visitor's address and the form), in this process: a form
 * can not be flooded from one address. `max` 0 turns it off. Past the limit: 429 with the error
 * body and the seconds to wait.
 */
export function submitLimiter(max: number, windowMs: number) {
  const windows = new Map<string, { start: number; count: number }>();
  let sweptAt = 0;
  return {
    take(key: string, now = Date.now()) {
      if (max === 0) return;
      if (now - sweptAt > windowMs) {
        for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
        sweptAt = now;
      }
      let w = windows.get(key);
      if (!w || now - w.start >= windowMs) {
        // Keys of made-up form uuids must not grow the map without bound: the oldest go first.
        if (!w && windows.size >= MAX_KEYS) windows.delete(windows.keys().next().value!);
        w = { start: now, count: 0 };
        windows.set(key, w);
      }
      w.count += 1;
      if (w.count > max) {
        const seconds = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000));
        throw new DomainError('RATE_LIMITED', 'Too many submissions', [
          { message: `More than ${max} submissions of this form from this address in ${Math.round(windowMs / 1000)} s`, type: 'GENERAL', correctionSuggestion: `Wait ${seconds} s and submit again` },
        ], { retryAfterSeconds: seconds });
      }
    },
  };
}
