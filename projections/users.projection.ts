import type { StoredEvent } from '../aggregates/kernel/events.js';
import { userEventTypes, userUuidOfStream, type UserEvent } from '../aggregates/user/user.events.js';
import type { Projection } from './projection.js';

/** `users`: one row per user stream; every change is guarded by the stream revision. */
export const usersProjection: Projection = {
  name: 'users',
  tables: ['users'],
  handles: userEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<UserEvent> & UserEvent;
    const at = stored.metadata.occurredAt;
    const guard = [userUuidOfStream(stored.streamId), stored.revision, at];
    switch (event.type) {
      case 'UserRegistered': {
        const d = event.data;
        await tx.query(
          `insert into users (user_uuid, email, firstname, lastname, created_at, updated_at, revision)
           values ($1, $2, $3, $4, $5, $5, $6) on conflict (user_uuid) do nothing`,
          [d.userUuid, d.email, d.firstname, d.lastname, at, stored.revision],
        );
        return;
      }
      case 'UserEmailVerified':
        await tx.query('update users set email_verified = true, updated_at = $3, revision = $2 where user_uuid = $1 and revision < $2', guard);
        return;
      case 'UserPasswordChanged':
        await tx.query('update users set updated_at = $3, revision = $2 where user_uuid = $1 and revision < $2', guard);
        return;
      case 'UserCompanySelected':
        await tx.query('update users set last_company_uuid = $3, revision = $2 where user_uuid = $1 and revision < $2', [guard[0], guard[1], event.data.companyUuid]);
        return;
    }
  },
};
