import { randomUUID } from 'node:crypto';
import { notFound } from '../../aggregates/kernel/errors.js';
import { teamDecider, type TeamCommand } from '../../aggregates/team/team.decider.js';
import { teamStream } from '../../aggregates/team/team.events.js';
import { memberOf } from '../../read-models/memberships.queries.js';
import { getRecord } from '../../read-models/records.queries.js';
import { membersOfTeams, recordsOfTeam, teamOf, teamsOf, type TeamMemberRow, type TeamRow } from '../../read-models/teams.queries.js';
import type { CompanyActor } from '../auth/actor.js';
import { handleCommand } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';

export interface TeamView extends TeamRow {
  members: TeamMemberRow[];
}

/** Teams of the actor's company. A team of another company is the same 404 as a missing one. */
export function makeTeamsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  async function view(actor: CompanyActor, teamUuid: string): Promise<TeamView> {
    const row = await teamOf(db, actor.tenant, teamUuid);
    if (!row) throw notFound('Team', teamUuid);
    const members = await membersOfTeams(db, actor.tenant, [teamUuid]);
    return { ...row, members: members.get(teamUuid) ?? [] };
  }

  async function onTeam(actor: CompanyActor, teamUuid: string, requestId: string, command: TeamCommand) {
    if (command.type !== 'CreateTeam' && !(await teamOf(db, actor.tenant, teamUuid))) throw notFound('Team', teamUuid);
    return handleCommand({
      store,
      decider: teamDecider,
      streamId: teamStream(teamUuid),
      command,
      context: { tenant: actor.tenant, userUuid: actor.userUuid, requestId, now: Date.now() },
    });
  }

  return {
    view,

    async create(actor: CompanyActor, input: { name: string; description: string; scopes: string[] }, requestId: string) {
      const teamUuid = randomUUID();
      await onTeam(actor, teamUuid, requestId, { type: 'CreateTeam', teamUuid, ...input });
      return view(actor, teamUuid);
    },

    async list(actor: CompanyActor, limit: number, offset: number): Promise<{ rows: TeamView[]; total: number }> {
      const { rows, total } = await teamsOf(db, actor.tenant, limit, offset);
      const members = await membersOfTeams(db, actor.tenant, rows.map((r) => r.team_uuid));
      return { rows: rows.map((r) => ({ ...r, members: members.get(r.team_uuid) ?? [] })), total };
    },

    async update(actor: CompanyActor, teamUuid: string, patch: { name?: string; description?: string; scopes?: string[] }, requestId: string) {
      await onTeam(actor, teamUuid, requestId, { type: 'UpdateTeam', ...patch });
      return view(actor, teamUuid);
    },

    async remove(actor: CompanyActor, teamUuid: string, requestId: string) {
      await onTeam(actor, teamUuid, requestId, { type: 'DeleteTeam' });
    },

    async addMember(actor: CompanyActor, teamUuid: string, userUuid: string, requestId: string) {
      const isCompanyMember = (await memberOf(db, actor.tenant, userUuid)) !== null;
      await onTeam(actor, teamUuid, requestId, { type: 'AddTeamMember', userUuid, isCompanyMember });
      return view(actor, teamUuid);
    },

    async removeMember(actor: CompanyActor, teamUuid: string, userUuid: string, requestId: string) {
      await onTeam(actor, teamUuid, requestId, { type: 'RemoveTeamMember', userUuid });
      return view(actor, teamUuid);
    },

    /**
     * The team side of assignment. The record must be one of the company's (archived or not):
     * another company's record, or a uuid of nothing, is the same 404 and nothing is written.
     */
    async assignRecord(actor: CompanyActor, teamUuid: string, recordUuid: string, requestId: string) {
      if (!(await teamOf(db, actor.tenant, teamUuid))) throw notFound('Team', teamUuid);
      if (!(await getRecord(db, actor.tenant, recordUuid))) throw notFound('Record', recordUuid);
      await onTeam(actor, teamUuid, requestId, { type: 'AssignTeamRecord', recordUuid });
      return recordsOfTeam(db, actor.tenant, teamUuid);
    },

    async unassignRecord(actor: CompanyActor, teamUuid: string, recordUuid: string, requestId: string) {
      await onTeam(actor, teamUuid, requestId, { type: 'UnassignTeamRecord', recordUuid });
      return recordsOfTeam(db, actor.tenant, teamUuid);
    },

    records: (actor: CompanyActor, teamUuid: string) => view(actor, teamUuid).then(() => recordsOfTeam(db, actor.tenant, teamUuid)),
  };
}
export type TeamsService = ReturnType<typeof makeTeamsService>;
