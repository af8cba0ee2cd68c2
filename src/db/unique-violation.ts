import { isSqlState } from './sql-state.js';

/** Whether `err` is PostgreSQL's unique_violation (23505), optionally on one named index or constraint. */
function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (!isSqlState(err, '23505')) return false;
  const e = err as { constraint?: string; message?: string };
  return constraint === undefined || e.constraint === constraint || (e.message ?? '').includes(constraint);
}

/**
 * What a write means when a unique index refuses it, by index (or constraint) name: throw the
 * domain's error (the name is taken), or answer instead (another request made it a moment ago).
 * Gets the database's error, to throw as it is when the index alone does not say enough.
 */
export type WhenTaken<T> = Readonly<Record<string, (err: unknown) => T | Promise<T>>>;

/**
 * Runs `write`; a unique violation of one of `taken`'s indexes becomes what its entry makes of it.
 * Every other failure, and a violation of any other index, is thrown as it came. The one
 * try/catch around a unique violation: services name their indexes here and write no other.
 */
export async function mapUniqueViolations<T>(write: () => Promise<T>, taken: WhenTaken<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const index = Object.keys(taken).find((name) => isUniqueViolation(err, name));
    if (index === undefined) throw err;
    return taken[index]!(err);
  }
}
