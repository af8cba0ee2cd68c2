import { DomainError, invalid, notFound } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import type { TeamEvent } from './team.events.js';

export type TeamCommand =
  | { type: 'CreateTeam'; teamUuid: string; name: string; description: string; scopes: string[] }
  | { type: 'UpdateTeam'; name?: string; description?: string; scopes?: string[] }
  | { type: 'DeleteTeam' }
  /** `isCompanyMember`: whether the user is an active member of the team's company (loaded by the handler). */
  | { type: 'AddTeamMember'; userUuid: string; isCompanyMember: boolean }
  | { type: 'RemoveTeamMember'; userUuid: string }
  | { type: 'AssignTeamRecord'; recordUuid: string }
  | { type: 'UnassignTeamRecord'; recordUuid: string };

export interface TeamState {
  exists: boolean;
  deleted: boolean;
  teamUuid: string;
  members: ReadonlySet<string>;
  records: ReadonlySet<string>;
}

function checkName(raw: string) {
  const name = raw.trim();
  if (!name || name.length > 200) throw invalid('name', 'name must have 1 to 200 characters', 'Send a team name', 'INVALID_VALUE');
  return name;
}

function live(state: TeamState) {
  if (!state.exists || state.deleted) throw notFound('Team', state.teamUuid || 'requested');
}

const withItem = (set: ReadonlySet<string>, item: string) => new Set([...set, item]);
const withoutItem = (set: ReadonlySet<string>, item: string) => new Set([...set].filter((x) => x !== item));

export const teamDecider: Decider<TeamState, TeamCommand, TeamEvent> = {
  initialState: () => ({ exists: false, deleted: false, teamUuid: '', members: new Set(), records: new Set() }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateTeam':
        if (state.exists) throw new DomainError('CONFLICT', 'team already exists', [{ message: 'A team with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        return [{ type: 'TeamCreated', version: 1, data: { teamUuid: command.teamUuid, name: checkName(command.name), description: command.description.trim(), scopes: [...new Set(command.scopes)] } }];
      case 'UpdateTeam': {
        live(state);
        const data = {
          ...(command.name !== undefined ? { name: checkName(command.name) } : {}),
          ...(command.description !== undefined ? { description: command.description.trim() } : {}),
          ...(command.scopes !== undefined ? { scopes: [...new Set(command.scopes)] } : {}),
        };
        return Object.keys(data).length === 0 ? [] : [{ type: 'TeamUpdated', version: 1, data }];
      }
      case 'DeleteTeam':
        live(state);
        return [{ type: 'TeamDeleted', version: 1, data: { teamUuid: state.teamUuid } }];
      case 'AddTeamMember':
        live(state);
        if (!command.isCompanyMember) throw notFound('User', command.userUuid);
        return state.members.has(command.userUuid) ? [] : [{ type: 'TeamMemberAdded', version: 1, data: { userUuid: command.userUuid } }];
      case 'RemoveTeamMember':
        live(state);
        if (!state.members.has(command.userUuid)) throw notFound('Team member', command.userUuid);
        return [{ type: 'TeamMemberRemoved', version: 1, data: { userUuid: command.userUuid } }];
      case 'AssignTeamRecord':
        live(state);
        return state.records.has(command.recordUuid) ? [] : [{ type: 'TeamRecordAssigned', version: 1, data: { recordUuid: command.recordUuid } }];
      case 'UnassignTeamRecord':
        live(state);
        if (!state.records.has(command.recordUuid)) throw notFound('Team record', command.recordUuid);
        return [{ type: 'TeamRecordUnassigned', version: 1, data: { recordUuid: command.recordUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'TeamCreated':
        return { ...state, exists: true, teamUuid: event.data.teamUuid };
      case 'TeamUpdated':
        return state;
      case 'TeamDeleted':
        return { ...state, deleted: true };
      case 'TeamMemberAdded':
        return { ...state, members: withItem(state.members, event.data.userUuid) };
      case 'TeamMemberRemoved':
        return { ...state, members: withoutItem(state.members, event.data.userUuid) };
      case 'TeamRecordAssigned':
        return { ...state, records: withItem(state.records, event.data.recordUuid) };
      case 'TeamRecordUnassigned':
        return { ...state, records: withoutItem(state.records, event.data.recordUuid) };
    }
  },
};
