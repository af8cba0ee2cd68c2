import { DomainError } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import type { DataCopyEvent, UuidPair } from './data-copy.events.js';

/** A partner copy's data (spec 1.16): started -> (uuids mapped, progress)* -> finished or failed. */
export type DataCopyCommand =
  | { type: 'StartDataCopy'; sourceCompanyUuid: string; asOf: { position: number | null; time: number | null }; upToPosition: number; total: number }
  | { type: 'MapCopiedUuids'; pairs: UuidPair[]; copied: number }
  | { type: 'FinishDataCopy'; copied: number }
  | { type: 'FailDataCopy'; reason: string };

export interface DataCopyState {
  status: 'none' | 'copying' | 'finished' | 'failed';
  total: number;
  copied: number;
}

const notCopying = () =>
  new DomainError('STATE_NOT_ALLOWED', 'the data copy is not running', [{ message: 'This copy has finished, failed or never started', type: 'GENERAL', correctionSuggestion: 'Read the copy to see its status' }]);

export const dataCopyDecider: Decider<DataCopyState, DataCopyCommand, DataCopyEvent> = {
  initialState: () => ({ status: 'none', total: 0, copied: 0 }),
  decide(command, state) {
    if (command.type === 'StartDataCopy') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', 'the data copy has started already', [{ message: 'A company is copied once', type: 'GENERAL', correctionSuggestion: 'Copy the source into a new company' }]);
      const { sourceCompanyUuid, asOf, upToPosition, total } = command;
      return [{ type: 'CompanyDataCopyStarted', version: 1, data: { sourceCompanyUuid, asOf, upToPosition, total } }];
    }
    if (state.status !== 'copying') throw notCopying();
    switch (command.type) {
      case 'MapCopiedUuids':
        return [
          ...(command.pairs.length ? [{ type: 'CompanyDataCopyUuidsMapped' as const, version: 1 as const, data: { pairs: command.pairs } }] : []),
          ...(command.copied > state.copied ? [{ type: 'CompanyDataCopyProgressed' as const, version: 1 as const, data: { copied: command.copied, total: state.total } }] : []),
        ];
      case 'FinishDataCopy':
        return [{ type: 'CompanyDataCopyFinished', version: 1, data: { copied: command.copied, total: state.total } }];
      case 'FailDataCopy':
        return [{ type: 'CompanyDataCopyFailed', version: 1, data: { reason: command.reason.slice(0, 500) } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CompanyDataCopyStarted':
        return { ...state, status: 'copying', total: event.data.total };
      case 'CompanyDataCopyUuidsMapped':
        return state;
      case 'CompanyDataCopyProgressed':
        return { ...state, copied: event.data.copied };
      case 'CompanyDataCopyFinished':
        return { ...state, status: 'finished', copied: event.data.copied };
      case 'CompanyDataCopyFailed':
        return { ...state, status: 'failed' };
    }
  },
};
