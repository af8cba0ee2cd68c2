import { DomainError, type ErrorDetail, type ErrorType } from './errors.js';

/**
 * Collects every validation problem of one request, so the caller hears about all of them in one
 * 400 instead of fixing them one round trip at a time.
 */
export function problems() {
  const details: ErrorDetail[] = [];
  return {
    add(field: string, message: string, correctionSuggestion: string, type: ErrorType = 'VALIDATION') {
      details.push({ field, message: `${field}: ${message}`, type, correctionSuggestion });
    },
    /** Runs a check that throws a DomainError, recording its first detail under `field` instead. */
    attempt<T>(field: string, check: () => T): T | undefined {
      try {
        return check();
      } catch (err) {
        const detail = err instanceof DomainError ? err.details[0] : undefined;
        if (!detail) throw err;
        details.push({ field, message: `${field}: ${detail.message}`, type: detail.type, correctionSuggestion: detail.correctionSuggestion });
        return undefined;
      }
    },
    get count() {
      return details.length;
    },
    /** Throws one VALIDATION_FAILED error carrying every problem, if there is any. */
    throwIfAny(summary: string) {
      if (details.length > 0) throw new DomainError('VALIDATION_FAILED', details.length === 1 ? details[0]!.message : summary, details);
    },
  };
}
export type Problems = ReturnType<typeof problems>;
