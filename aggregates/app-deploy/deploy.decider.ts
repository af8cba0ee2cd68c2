import { DomainError, notFound } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import type { DeployEvent } from './deploy.events.js';
import type { DeployManifest } from './deploy.manifest.js';

export type DeployCommand =
  | { type: 'CreateDeploy'; deployUuid: string; appUuid: string; manifest: DeployManifest; code: string; sha256: string; note: string }
  | { type: 'RollBackDeploy'; deployUuid: string };

export interface DeployState {
  /** Deploy uuids in the order they were made (number = index + 1). */
  deploys: string[];
  active: string | null;
}

export const deployDecider: Decider<DeployState, DeployCommand, DeployEvent> = {
  initialState: () => ({ deploys: [], active: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateDeploy': {
        if (state.deploys.includes(command.deployUuid)) throw new DomainError('CONFLICT', 'deploy exists', [{ message: 'A deploy with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Deploy again: a new deploy gets a new uuid' }]);
        const { type: _type, ...data } = command;
        return [
          { type: 'AppDeployCreated', version: 1, data: { ...data, number: state.deploys.length + 1 } },
          { type: 'AppDeployActivated', version: 1, data: { deployUuid: command.deployUuid, previousDeployUuid: state.active, reason: 'DEPLOY' } },
        ];
      }
      case 'RollBackDeploy': {
        if (!state.deploys.includes(command.deployUuid)) throw notFound('Deploy', command.deployUuid);
        if (state.active === command.deployUuid) {
          throw new DomainError('STATE_NOT_ALLOWED', 'the deploy is the active one', [{ message: `Deploy ${command.deployUuid} is active already`, type: 'GENERAL', correctionSuggestion: 'Roll back to an earlier deploy: the deploy history lists them' }]);
        }
        return [{ type: 'AppDeployActivated', version: 1, data: { deployUuid: command.deployUuid, previousDeployUuid: state.active, reason: 'ROLLBACK' } }];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'AppDeployCreated':
        return { ...state, deploys: [...state.deploys, event.data.deployUuid] };
      case 'AppDeployActivated':
        return { ...state, active: event.data.deployUuid };
    }
  },
};
