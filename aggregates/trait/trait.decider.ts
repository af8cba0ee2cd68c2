import type { Decider } from '../kernel/decider.js';
import { sameJson } from '../kernel/same-json.js';
import { notFound } from '../kernel/errors.js';
import { checkTraitConfig, type PropertyFact } from './trait-config.js';
import type { TraitName } from './trait.schemas.js';
import type { TraitEvent } from './trait.events.js';

export type TraitCommand =
  | { type: 'ConfigureTrait'; objectUuid: string; trait: TraitName; config: unknown; properties: readonly PropertyFact[] }
  | { type: 'RemoveTrait'; objectUuid: string; trait: TraitName };

export interface TraitState {
  configured: boolean;
  config: Record<string, unknown> | null;
}


export const traitDecider: Decider<TraitState, TraitCommand, TraitEvent> = {
  initialState: () => ({ configured: false, config: null }),
  decide(command, state) {
    switch (command.type) {
      case 'ConfigureTrait': {
        const config = checkTraitConfig(command.trait, command.config, command.properties) as Record<string, unknown>;
        if (state.configured && sameJson(config, state.config)) return [];
        return [{ type: 'TraitConfigured', version: 1, data: { objectUuid: command.objectUuid, trait: command.trait, config } }];
      }
      case 'RemoveTrait':
        if (!state.configured) throw notFound('Trait', `${command.trait} of object ${command.objectUuid}`);
        return [{ type: 'TraitRemoved', version: 1, data: { objectUuid: command.objectUuid, trait: command.trait } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'TraitConfigured':
        return { configured: true, config: event.data.config };
      case 'TraitRemoved':
        return { configured: false, config: null };
    }
  },
};
