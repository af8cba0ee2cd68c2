import { randomUUID } from 'node:crypto';
import { teamDecider } from '../../aggregates/team/team.decider.js';
import { teamStream } from '../../aggregates/team/team.events.js';
import { teamsOf } from '../../read-models/teams.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';

export interface CopyContext {
  db: Db;
  store: EventStore;
  fromTenant: string;
  /** Context of the writes into the new company (tenant = the copy). */
  context: CommandContext;
}

/**
 * One step of "create a company as a copy of another": each area copies its own definitions.
 * Object and property definitions add their step here when they arrive, records after them.
 */
export type CopyStep = (ctx: CopyContext) => Promise<void>;

/** Teams: name, description and scopes (not members: they belong to the source company). */
export const copyTeams: CopyStep = async ({ db, store, fromTenant, context }) => {
  for (let offset = 0; ; offset += 100) {
    const { rows } = await teamsOf(db, fromTenant, { limit: 100, offset });
    for (const team of rows) {
      const teamUuid = randomUUID();
      await handleCommand({
        store,
        decider: teamDecider,
        streamId: teamStream(teamUuid),
        command: { type: 'CreateTeam', teamUuid, name: team.name, description: team.description, scopes: team.scopes },
        context,
      });
    }
    if (rows.length < 100) return;
  }
};

/** Settings travel in the new company's CompanyCreated event; these steps copy the rest, in order. */
export const companyCopySteps: readonly CopyStep[] = [copyTeams];
