import { DomainError } from '../../aggregates/kernel/errors.js';
import type { StoredProtection } from '../../aggregates/page/page.events.js';
import { memberOf } from '../../read-models/memberships.queries.js';
import { makePasswordHasher } from '../auth/passwords.js';
import { loadSessionActor } from '../auth/sessions.js';
import { hashToken } from '../auth/tokens.js';
import type { Db } from '../db/db.js';

const refused = (message: string, suggestion: string) => new DomainError('UNAUTHENTICATED', message, [{ message, type: 'GENERAL', correctionSuggestion: suggestion }]);

/**
 * A public request's admission to a protected page: a password page wants X-Page-Password, a
 * members page a bearer token of an active member of the page's company; otherwise a 401.
 */
export function makeAdmission(deps: { db: Db; passwordLogN: number }) {
  const { db } = deps;
  const hasher = makePasswordHasher({ logN: deps.passwordLogN });
  return async function admitted(row: { tenant: string; protection: StoredProtection }, headers: Record<string, string | string[] | undefined>) {
    const p = row.protection;
    if (p.type === 'none') return;
    if (p.type === 'password') {
      const given = headers['x-page-password'];
      if (typeof given !== 'string' || given.length === 0 || given.length > 200 || !(await hasher.verify(given, p.passwordHash))) {
        throw refused('This page needs its password', 'Send the page password in the X-Page-Password header');
      }
      return;
    }
    const match = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(String(headers.authorization ?? '').trim());
    const session = match ? await loadSessionActor(db, hashToken(match[1]!), Date.now(), true) : null;
    const member = session ? await memberOf(db, row.tenant, session.user_uuid) : null;
    if (!member) throw refused('This page is for signed-in members of the company', 'Log in as a member of the company and send Authorization: Bearer <token>');
  };
}
