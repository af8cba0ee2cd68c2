import { isSqlState } from './sql-state.js';

/** Whether `err` is PostgreSQL's unique_violation (23505), optionally on one named index or constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (!isSqlState(err, '23505')) return false;
  const e = err as { constraint?: string; message?: string };
  return constraint === undefined || e.constraint === constraint || (e.message ?? '').includes(constraint);
}
