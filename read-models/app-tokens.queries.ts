import type { Sql } from '../ports/sql.js';
import type { InstallationRow } from './apps.queries.js';

/**
 * The live installations whose current client id, or previous one, is `clientId` (client ids are
 * random: one at most, in practice), whichever company installed the app: the token endpoint
 * learns the company from the credentials.
 */
export async function installationsByClientId(sql: Sql, clientId: string): Promise<InstallationRow[]> {
  return sql.query<InstallationRow>(
    `select * from rm_app_installations where installed and (credentials->>'clientId' = $1 or previous_credentials->>'clientId' = $1)`,
    [clientId],
  );
}
