import { DomainError } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import type { MembershipEvent } from './membership.events.js';
import type { CompanyRole } from './roles.js';

export type MembershipCommand =
  | { type: 'AddMember'; userUuid: string; role: CompanyRole; scopes: string[] }
  /** `otherAdmins`: active ADMINs of the company besides this member (loaded by the handler). */
  | { type: 'ChangeMember'; role?: CompanyRole; scopes?: string[]; otherAdmins: number }
  | { type: 'RemoveMember'; otherAdmins: number };

export interface MembershipState {
  active: boolean;
  userUuid: string;
  role: CompanyRole;
  scopes: string[];
}

const notMember = () =>
  new DomainError('NOT_FOUND', 'member not found', [{ message: 'The user is not a member of this company', type: 'NOT_FOUND', correctionSuggestion: 'Check the user uuid, or add the user first' }]);

const lastAdmin = () =>
  new DomainError('STATE_NOT_ALLOWED', 'a company keeps at least one ADMIN', [
    { message: 'This member is the last ADMIN of the company', type: 'GENERAL', correctionSuggestion: 'Make another member ADMIN first' },
  ]);

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

export const membershipDecider: Decider<MembershipState, MembershipCommand, MembershipEvent> = {
  initialState: () => ({ active: false, userUuid: '', role: 'USER', scopes: [] }),
  decide(command, state) {
    switch (command.type) {
      case 'AddMember':
        if (state.active) {
          throw new DomainError('CONFLICT', 'already a member', [{ message: 'The user is already a member of this company', type: 'GENERAL', correctionSuggestion: 'Change the membership with PUT instead' }]);
        }
        return [{ type: 'MemberAdded', version: 1, data: { userUuid: command.userUuid, role: command.role, scopes: [...new Set(command.scopes)] } }];
      case 'ChangeMember': {
        if (!state.active) throw notMember();
        const role = command.role ?? state.role;
        const scopes = command.scopes ? [...new Set(command.scopes)] : state.scopes;
        if (state.role === 'ADMIN' && role !== 'ADMIN' && command.otherAdmins === 0) throw lastAdmin();
        if (role === state.role && sameSet(scopes, state.scopes)) return [];
        return [{ type: 'MemberChanged', version: 1, data: { userUuid: state.userUuid, role, scopes } }];
      }
      case 'RemoveMember':
        if (!state.active) throw notMember();
        if (state.role === 'ADMIN' && command.otherAdmins === 0) throw lastAdmin();
        return [{ type: 'MemberRemoved', version: 1, data: { userUuid: state.userUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'MemberAdded':
      case 'MemberChanged':
        return { active: true, userUuid: event.data.userUuid, role: event.data.role, scopes: event.data.scopes };
      case 'MemberRemoved':
        return { ...state, active: false };
    }
  },
};
