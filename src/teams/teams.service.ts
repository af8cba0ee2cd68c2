import { randomUUID } from 'node:crypto';
import { notFound } from '../../aggregates/kernel/errors.js';
import { teamDecider, type TeamCommand } from '../../aggregates/team/team.decider.js';
import { teamStream } from '../../aggregates/team/team.events.js';
import { memberOf } from '../../read-models/memberships.queries.js';
import { getRecord } from '../../read-models/records.queries.js';
import { membersOfTeams, recordsOfTeam, teamOf, teamsOf, type TeamMemberRow, type TeamRow } from '../../read-models/teams.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';

export interface TeamView extends TeamRow {
  members: TeamMemberRow[];
}

/**
 * Teams of the selected company. Writes take the command context first, reads the tenant first.
 * A team of another company is the same 404 as a missing one.
 */
export function makeTeamsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  async function view(tenant: string, teamUuid: string): Promise<TeamView> {
    const row = await teamOf(db, tenant, teamUuid);
    if (!row) throw notFound('Team', teamUuid);
    const members = await membersOfTeams(db, tenant, [teamUuid]);
    return { ...row, members: members.get(teamUuid) ?? [] };
  }

  async function onTeam(ctx: CommandContext, teamUuid: string, command: TeamCommand) {
    if (command.type !== 'CreateTeam' && !(await teamOf(db, ctx.tenant, teamUuid))) throw notFound('Team', teamUuid);
    return handleCommand({ store, decider: teamDecider, streamId: teamStream(teamUuid), command, context: ctx });
  }

  return {
    view,

    async create(ctx: CommandContext, input: { name: string; description: string; scopes: string[] }) {
      const teamUuid = randomUUID();
      await onTeam(ctx, teamUuid, { type: 'CreateTeam', teamUuid, ...input });
      return view(ctx.tenant, teamUuid);
    },

    async list(tenant: string, o: { query?: string; limit: number; offset: number }): Promise<{ rows: TeamView[]; total: number }> {
      const { rows, total } = await teamsOf(db, tenant, o);
      const members = await membersOfTeams(db, tenant, rows.map((r) => r.team_uuid));
      return { rows: rows.map((r) => ({ ...r, members: members.get(r.team_uuid) ?? [] })), total };
    },

    async update(ctx: CommandContext, teamUuid: string, patch: { name?: string; description?: string; scopes?: string[] }) {
      await onTeam(ctx, teamUuid, { type: 'UpdateTeam', ...patch });
      return view(ctx.tenant, teamUuid);
    },

    async remove(ctx: CommandContext, teamUuid: string) {
      await onTeam(ctx, teamUuid, { type: 'DeleteTeam' });
    },

    async addMember(ctx: CommandContext, teamUuid: string, userUuid: string) {
      const isCompanyMember = (await memberOf(db, ctx.tenant, userUuid)) !== null;
      await onTeam(ctx, teamUuid, { type: 'AddTeamMember', userUuid, isCompanyMember });
      return view(ctx.tenant, teamUuid);
    },

    async removeMember(ctx: CommandContext, teamUuid: string, userUuid: string) {
      await onTeam(ctx, teamUuid, { type: 'RemoveTeamMember', userUuid });
      return view(ctx.tenant, teamUuid);
    },

    /**
     * The team side of assignment. The record must be one of the company's (archived or not):
     * another company's record, or a uuid of nothing, is the same 404 and nothing is written.
     */
    async assignRecord(ctx: CommandContext, teamUuid: string, recordUuid: string) {
      if (!(await teamOf(db, ctx.tenant, teamUuid))) throw notFound('Team', teamUuid);
      if (!(await getRecord(db, ctx.tenant, recordUuid))) throw notFound('Record', recordUuid);
      await onTeam(ctx, teamUuid, { type: 'AssignTeamRecord', recordUuid });
      return recordsOfTeam(db, ctx.tenant, teamUuid);
    },

    async unassignRecord(ctx: CommandContext, teamUuid: string, recordUuid: string) {
      await onTeam(ctx, teamUuid, { type: 'UnassignTeamRecord', recordUuid });
      return recordsOfTeam(db, ctx.tenant, teamUuid);
    },

    records: (tenant: string, teamUuid: string) => view(tenant, teamUuid).then(() => recordsOfTeam(db, tenant, teamUuid)),
  };
}
export type TeamsService = ReturnType<typeof makeTeamsService>;
