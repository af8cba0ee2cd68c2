import { DomainError, invalid } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import type { UserEvent } from './user.events.js';

export type UserCommand =
  | { type: 'RegisterUser'; userUuid: string; email: string; firstname: string; lastname: string }
  | { type: 'VerifyUserEmail' }
  | { type: 'ChangeUserPassword'; reason: 'reset' | 'change' }
  | { type: 'SelectCompany'; companyUuid: string };

export interface UserState {
  exists: boolean;
  email: string;
  verified: boolean;
  lastCompanyUuid: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function mustExist(state: UserState) {
  if (!state.exists) throw new DomainError('NOT_FOUND', 'user not found', [{ message: 'The user does not exist', type: 'NOT_FOUND', correctionSuggestion: 'Check the user uuid' }]);
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ exists: false, email: '', verified: false, lastCompanyUuid: null }),
  decide(command, state) {
    switch (command.type) {
      case 'RegisterUser': {
        if (state.exists) throw new DomainError('CONFLICT', 'user already registered', [{ message: 'This user is already registered', type: 'GENERAL', correctionSuggestion: 'Log in instead' }]);
        const email = command.email.trim().toLowerCase();
        if (!EMAIL.test(email)) throw invalid('email', 'email is not a valid address', 'Send an address like name@example.com', 'INVALID_EMAIL');
        const firstname = command.firstname.trim();
        const lastname = command.lastname.trim();
        if (!firstname) throw invalid('firstname', 'firstname is empty', 'Send a first name');
        if (!lastname) throw invalid('lastname', 'lastname is empty', 'Send a last name');
        return [{ type: 'UserRegistered', version: 1, data: { userUuid: command.userUuid, email, firstname, lastname } }];
      }
      case 'VerifyUserEmail':
        mustExist(state);
        return state.verified ? [] : [{ type: 'UserEmailVerified', version: 1, data: { email: state.email } }];
      case 'ChangeUserPassword':
        mustExist(state);
        return [{ type: 'UserPasswordChanged', version: 1, data: { reason: command.reason } }];
      case 'SelectCompany':
        mustExist(state);
        return state.lastCompanyUuid === command.companyUuid ? [] : [{ type: 'UserCompanySelected', version: 1, data: { companyUuid: command.companyUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { ...state, exists: true, email: event.data.email };
      case 'UserEmailVerified':
        return { ...state, verified: true };
      case 'UserPasswordChanged':
        return state;
      case 'UserCompanySelected':
        return { ...state, lastCompanyUuid: event.data.companyUuid };
    }
  },
};
