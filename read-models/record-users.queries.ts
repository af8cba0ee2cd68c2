import type { Sql } from '../ports/sql.js';
import { isUuid } from '../aggregates/kernel/uuid.js';

/** A user who can be the profile of a record (User trait): an active member of the company. */
export interface LinkableMember {
  user_uuid: string;
  /** The record of the company that is this user's profile already, if any. */
  linked_record: string | null;
}

const memberSql = (match: string) => `
select u.user_uuid,
       (select r.uuid from records r where r.tenant = $1::text and r.user_uuid = u.user_uuid and r.is_primary limit 1) as linked_record
  from users u
  join memberships m on m.tenant = ($1::text)::uuid and m.user_uuid = u.user_uuid and m.active
 where ${match}`;

/**
 * The active member of the company `tenant` with this e-mail (case-insensitive) or uuid; null when
 * there is none. A user of another company only is never found: that is how a record of one
 * company can never be linked to another company's user.
 */
export async function linkableMember(sql: Sql, tenant: string, who: { email: string } | { userUuid: string }): Promise<LinkableMember | null> {
  if (!isUuid(tenant)) return null;
  if ('email' in who) {
    const [row] = await sql.query<LinkableMember>(memberSql('lower(u.email) = lower($2)'), [tenant, who.email.trim()], 'record_user_by_email');
    return row ?? null;
  }
  if (!isUuid(who.userUuid)) return null;
  const [row] = await sql.query<LinkableMember>(memberSql('u.user_uuid = $2'), [tenant, who.userUuid], 'record_user_by_uuid');
  return row ?? null;
}
