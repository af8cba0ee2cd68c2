import type { StoredEvent } from '../aggregates/kernel/events.js';
import { membershipEventTypes, type MembershipEvent } from '../aggregates/membership/membership.events.js';
import type { Projection } from './projection.js';

/** `memberships`: one row per (company, user); a removal keeps the row inactive so the revision guard holds. */
export const membershipsProjection: Projection = {
  name: 'memberships',
  tables: ['memberships'],
  handles: membershipEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<MembershipEvent> & MembershipEvent;
    const at = stored.metadata.occurredAt;
    if (event.type === 'MemberRemoved') {
      await tx.query('update memberships set active = false, updated_at = $4, revision = $3 where tenant = $1 and user_uuid = $2 and revision < $3', [
        stored.tenant,
        event.data.userUuid,
        stored.revision,
        at,
      ]);
      return;
    }
    await tx.query(
      `insert into memberships (tenant, user_uuid, role, scopes, active, created_at, updated_at, revision)
       values ($1, $2, $3, $4::jsonb, true, $5, $5, $6)
       on conflict (tenant, user_uuid) do update set role = excluded.role, scopes = excluded.scopes, active = true,
         updated_at = excluded.updated_at, revision = excluded.revision
       where memberships.revision < excluded.revision`,
      [stored.tenant, event.data.userUuid, event.data.role, JSON.stringify(event.data.scopes), at, stored.revision],
    );
  },
};
