import type { StoredEvent } from '../aggregates/kernel/events.js';
import { teamEventTypes, teamUuidOfStream, type TeamEvent } from '../aggregates/team/team.events.js';
import type { Projection } from './projection.js';
import type { Sql } from '../ports/sql.js';

/** Advances the team's revision; false when this event was applied already (idempotency). */
async function advance(tx: Sql, stored: StoredEvent, set = '') {
  const rows = await tx.query(
    `update teams set updated_at = $4, updated_by = $5, revision = $3${set} where tenant = $1 and team_uuid = $2 and revision < $3 returning team_uuid`,
    [stored.tenant, teamUuidOfStream(stored.streamId), stored.revision, stored.metadata.occurredAt, stored.metadata.userUuid],
  );
  return rows.length === 1;
}

/** `teams`, `team_members`, `team_records`: all guarded by the team stream's revision on `teams`. */
export const teamsProjection: Projection = {
  name: 'teams',
  tables: ['teams', 'team_members', 'team_records'],
  handles: teamEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<TeamEvent> & TeamEvent;
    const { tenant } = stored;
    const team = teamUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    switch (event.type) {
      case 'TeamCreated': {
        const d = event.data;
        await tx.query(
          `insert into teams (tenant, team_uuid, name, description, scopes, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5::jsonb, $6, $6, $7, $7, $8) on conflict do nothing`,
          [tenant, d.teamUuid, d.name, d.description, JSON.stringify(d.scopes), at, stored.metadata.userUuid, stored.revision],
        );
        return;
      }
      case 'TeamUpdated': {
        const d = event.data;
        if (!(await advance(tx, stored))) return;
        await tx.query(
          `update teams set name = coalesce($3, name), description = coalesce($4, description), scopes = coalesce($5::jsonb, scopes)
           where tenant = $1 and team_uuid = $2`,
          [tenant, team, d.name ?? null, d.description ?? null, d.scopes ? JSON.stringify(d.scopes) : null],
        );
        return;
      }
      case 'TeamDeleted':
        await advance(tx, stored, ', deleted_at = $4, deleted_by = $5');
        return;
      case 'TeamMemberAdded':
        if (await advance(tx, stored)) {
          await tx.query('insert into team_members (tenant, team_uuid, user_uuid, added_at) values ($1, $2, $3, $4) on conflict do nothing', [tenant, team, event.data.userUuid, at]);
        }
        return;
      case 'TeamMemberRemoved':
        if (await advance(tx, stored)) {
          await tx.query('delete from team_members where tenant = $1 and team_uuid = $2 and user_uuid = $3', [tenant, team, event.data.userUuid]);
        }
        return;
      case 'TeamRecordAssigned':
        if (await advance(tx, stored)) {
          await tx.query('insert into team_records (tenant, team_uuid, record_uuid, assigned_at) values ($1, $2, $3, $4) on conflict do nothing', [tenant, team, event.data.recordUuid, at]);
        }
        return;
      case 'TeamRecordUnassigned':
        if (await advance(tx, stored)) {
          await tx.query('delete from team_records where tenant = $1 and team_uuid = $2 and record_uuid = $3', [tenant, team, event.data.recordUuid]);
        }
        return;
    }
  },
};
