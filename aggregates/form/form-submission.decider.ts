import type { Decider } from '../kernel/decider.js';
import { DomainError } from '../kernel/errors.js';
import type { FormSubmissionEvent } from './form.events.js';

export type SubmitForm = { type: 'SubmitForm' } & FormSubmissionEvent['data'];

export interface FormSubmissionState {
  exists: boolean;
}

/**
 * A submission is created once: its stream is named by the client's submission id (or a fresh
 * uuid), so a double click finds the stream taken and creates nothing a second time.
 */
export const formSubmissionDecider: Decider<FormSubmissionState, SubmitForm, FormSubmissionEvent> = {
  initialState: () => ({ exists: false }),
  decide(command, state) {
    if (state.exists) throw new DomainError('CONFLICT', `Submission ${command.submissionUuid} exists`, [{ message: 'This submission was received already', type: 'GENERAL', correctionSuggestion: 'Send a new submission id for a new submission' }]);
    const { type: _type, ...data } = command;
    return [{ type: 'FormSubmissionEvent', version: 1, data }];
  },
  evolve: () => ({ exists: true }),
};
