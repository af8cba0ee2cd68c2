/**
 * Whether `err` is an error PostgreSQL answered with an SQLSTATE (five characters: the statement
 * was refused, so it wrote nothing), or with that one `code`. A lost connection or a driver fault
 * has no SQLSTATE.
 */
export function isSqlState(err: unknown, code?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const actual = String((err as { code?: unknown }).code);
  return code === undefined ? /^[0-9A-Z]{5}$/.test(actual) : actual === code;
}
