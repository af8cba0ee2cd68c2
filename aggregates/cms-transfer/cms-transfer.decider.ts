import type { Decider } from '../kernel/decider.js';
import { DomainError } from '../kernel/errors.js';
import type { CmsTransferEvent, V1Project, V2Live, WebProject } from './cms-transfer.events.js';

/**
 * The states of a company's move to the CMS v2 runtime (docs/cms.md, "CMS v2 transfer"):
 * `not_started` (v1 live, no project), `attached` (a v2 project attached, v1 still live),
 * `cut_over` (the live hostname on v2), `rolled_back` (the hostname back on v1, the project kept).
 */
export const transferStates = ['not_started', 'attached', 'cut_over', 'rolled_back'] as const;
export type TransferState = (typeof transferStates)[number];

export interface CmsTransferState {
  state: TransferState;
  transferUuid: string | null;
  project: WebProject | null;
  live: V2Live | null;
  v1: V1Project | null;
}

export type CmsTransferCommand =
  | { type: 'AttachProject'; transferUuid: string; project: WebProject }
  | { type: 'CutOver'; live: V2Live; v1: V1Project }
  | { type: 'RollBack'; reason: string };

const notAllowed = (message: string, correctionSuggestion: string) => new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion }]);
/** Equal field by field: a state read back from jsonb has its keys in another order. */
const same = <T extends object>(a: T | null, b: T) => a !== null && (Object.keys(b) as (keyof T)[]).every((k) => a[k] === b[k]) && Object.keys(a).length === Object.keys(b).length;

/**
 * Each transition is one event; repeating the last one with the same input decides nothing (the
 * same answer, no event); a transition the state does not allow is STATE_NOT_ALLOWED (409).
 */
export const cmsTransferDecider: Decider<CmsTransferState, CmsTransferCommand, CmsTransferEvent> = {
  initialState: () => ({ state: 'not_started', transferUuid: null, project: null, live: null, v1: null }),
  decide(command, s) {
    switch (command.type) {
      case 'AttachProject':
        if (s.state === 'cut_over') throw notAllowed(`The live site is on the v2 project ${s.project!.projectId}: another project cannot be attached now`, 'Roll back first, then attach the other project');
        if (s.state === 'attached' && same(s.project, command.project)) return [];
        return [{ type: 'CmsTransferAttached', version: 1, data: { transferUuid: command.transferUuid, project: command.project } }];
      case 'CutOver':
        if (s.state === 'not_started') throw notAllowed('No v2 web project is attached: there is nothing to cut over to', 'Attach the web project first');
        if (s.state === 'cut_over') {
          if (same(s.live, command.live)) return [];
          throw notAllowed(`The live site is already on v2 at ${s.live!.hostname} (schema ${s.live!.schema})`, 'Roll back first to cut over with other settings, or repeat the cutover with the same ones');
        }
        return [{ type: 'CmsTransferCutOver', version: 1, data: { transferUuid: s.transferUuid!, live: command.live, v1: command.v1 } }];
      case 'RollBack':
        if (s.state === 'rolled_back') return [];
        if (s.state !== 'cut_over') throw notAllowed(`The live site is on v1 (state ${s.state}): there is nothing to roll back`, 'A rollback follows a cutover');
        return [{ type: 'CmsTransferRolledBack', version: 1, data: { transferUuid: s.transferUuid!, hostname: s.live!.hostname, v1: s.v1!, reason: command.reason } }];
    }
  },
  evolve(s, event) {
    switch (event.type) {
      case 'CmsTransferAttached':
        return { state: 'attached', transferUuid: event.data.transferUuid, project: event.data.project, live: null, v1: null };
      case 'CmsTransferCutOver':
        return { ...s, state: 'cut_over', live: event.data.live, v1: event.data.v1 };
      case 'CmsTransferRolledBack':
        return { ...s, state: 'rolled_back', live: null, v1: event.data.v1 };
    }
  },
};
