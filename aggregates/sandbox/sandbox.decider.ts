import { DomainError, invalid, notFound } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import type { SandboxAsOf, SandboxEvent } from './sandbox.events.js';

/** A sandbox's life: cloning -> ready (or failed) -> deleted. */
export type SandboxStatus = 'cloning' | 'ready' | 'failed';

export type SandboxCommand =
  /** `upToPosition` and `total` are outside facts: the handler reads them from the log. */
  | { type: 'RequestSandbox'; sandboxUuid: string; name: string; asOf: SandboxAsOf; upToPosition: number; total: number }
  | { type: 'RecordCloneProgress'; copied: number }
  | { type: 'FinishClone'; copied: number; lastPosition: number }
  | { type: 'FailClone'; reason: string }
  | { type: 'SetSandboxReactors'; enabled: boolean }
  | { type: 'DeleteSandbox' };

export interface SandboxState {
  exists: boolean;
  deleted: boolean;
  sandboxUuid: string;
  status: SandboxStatus;
  total: number;
  copied: number;
  reactorsEnabled: boolean;
}

const notCloning = (what: string) =>
  new DomainError('STATE_NOT_ALLOWED', `the sandbox is not cloning: cannot ${what}`, [
    { message: 'The clone of this sandbox has already finished or failed', type: 'GENERAL', correctionSuggestion: 'Read the sandbox to see its status' },
  ]);

function live(state: SandboxState) {
  if (!state.exists || state.deleted) throw notFound('Sandbox', state.sandboxUuid || 'requested');
}

function checkName(raw: string) {
  const name = raw.trim();
  if (!name || name.length > 200) throw invalid('name', 'name must have 1 to 200 characters', 'Send a sandbox name of 1 to 200 characters', 'INVALID_VALUE');
  return name;
}

export const sandboxDecider: Decider<SandboxState, SandboxCommand, SandboxEvent> = {
  initialState: () => ({ exists: false, deleted: false, sandboxUuid: '', status: 'cloning', total: 0, copied: 0, reactorsEnabled: false }),
  decide(command, state) {
    switch (command.type) {
      case 'RequestSandbox':
        if (state.exists) throw new DomainError('CONFLICT', 'sandbox already exists', [{ message: 'A sandbox with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        return [{ type: 'SandboxRequested', version: 1, data: { sandboxUuid: command.sandboxUuid, name: checkName(command.name), asOf: command.asOf, upToPosition: command.upToPosition, total: command.total } }];
      case 'RecordCloneProgress':
        live(state);
        if (state.status !== 'cloning') throw notCloning('record progress');
        return command.copied > state.copied ? [{ type: 'SandboxCloneProgressed', version: 1, data: { copied: command.copied, total: state.total } }] : [];
      case 'FinishClone':
        live(state);
        if (state.status !== 'cloning') throw notCloning('finish');
        return [{ type: 'SandboxReady', version: 1, data: { copied: command.copied, total: state.total, lastPosition: command.lastPosition } }];
      case 'FailClone':
        live(state);
        if (state.status !== 'cloning') throw notCloning('fail');
        return [{ type: 'SandboxCloneFailed', version: 1, data: { reason: command.reason.slice(0, 500) } }];
      case 'SetSandboxReactors':
        live(state);
        return command.enabled === state.reactorsEnabled ? [] : [{ type: 'SandboxReactorsChanged', version: 1, data: { enabled: command.enabled } }];
      case 'DeleteSandbox':
        live(state);
        return [{ type: 'SandboxDeleted', version: 1, data: { sandboxUuid: state.sandboxUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SandboxRequested':
        return { ...state, exists: true, sandboxUuid: event.data.sandboxUuid, total: event.data.total };
      case 'SandboxCloneProgressed':
        return { ...state, copied: event.data.copied };
      case 'SandboxReady':
        return { ...state, status: 'ready', copied: event.data.copied };
      case 'SandboxCloneFailed':
        return { ...state, status: 'failed' };
      case 'SandboxReactorsChanged':
        return { ...state, reactorsEnabled: event.data.enabled };
      case 'SandboxDeleted':
        return { ...state, deleted: true };
    }
  },
};
