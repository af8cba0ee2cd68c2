/** The same server, another database. */
export function databaseUrlFor(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A database to run CREATE/DROP DATABASE from: the server's `postgres` database. */
export const adminUrl = (url: string) => databaseUrlFor(url, 'postgres');
