import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import { problems } from '../kernel/problems.js';
import type { ModuleEvent } from './module.events.js';
import type { ModuleSettings } from './module.schemas.js';

export type ModuleCommand =
  | { type: 'CreateModule'; moduleUuid: string; ownerUuid: string | null; settings: ModuleSettings }
  | { type: 'UpdateModule'; changes: Partial<ModuleSettings> }
  | { type: 'DeleteModule' };

export interface ModuleState {
  exists: boolean;
  deleted: boolean;
  moduleUuid: string;
  settings: ModuleSettings | null;
}

/** Field names unique, options only on select fields, a default of the field's own kind. */
function checkFields(settings: ModuleSettings) {
  const p = problems();
  const seen = new Set<string>();
  settings.fields.forEach((f, i) => {
    if (seen.has(f.name)) p.add(`body.fields.${i}.name`, `field ${f.name} is defined twice`, 'Give each field its own name', 'INVALID_VALUE');
    seen.add(f.name);
    if (f.options !== undefined && f.type !== 'select') p.add(`body.fields.${i}.options`, 'only a select field has options', 'Leave options out, or make the field a select', 'INVALID_VALUE');
    if (f.type === 'select' && (f.options?.length ?? 0) === 0) p.add(`body.fields.${i}.options`, 'a select field needs options', 'Send options: the allowed values', 'INVALID_VALUE');
  });
  p.throwIfAny('The module definition has several problems');
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const moduleDecider: Decider<ModuleState, ModuleCommand, ModuleEvent> = {
  initialState: () => ({ exists: false, deleted: false, moduleUuid: '', settings: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateModule':
        if (state.exists) throw new DomainError('CONFLICT', 'module already exists', [{ message: 'A module with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        checkFields(command.settings);
        return [{ type: 'ModuleCreated', version: 1, data: { ...command.settings, moduleUuid: command.moduleUuid, ownerUuid: command.ownerUuid } }];
      case 'UpdateModule': {
        if (!state.exists || state.deleted) throw notFound('Module', state.moduleUuid || 'requested');
        const next = { ...state.settings!, ...command.changes };
        checkFields(next);
        const changes = Object.fromEntries(Object.entries(command.changes).filter(([k, v]) => v !== undefined && !same(v, state.settings![k as keyof ModuleSettings])));
        return Object.keys(changes).length === 0 ? [] : [{ type: 'ModuleUpdated', version: 1, data: { changes } }];
      }
      case 'DeleteModule':
        if (!state.exists || state.deleted) throw notFound('Module', state.moduleUuid || 'requested');
        return [{ type: 'ModuleDeleted', version: 1, data: { moduleUuid: state.moduleUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ModuleCreated': {
        const { moduleUuid, ownerUuid: _owner, ...settings } = event.data;
        return { exists: true, deleted: false, moduleUuid, settings };
      }
      case 'ModuleUpdated':
        return { ...state, settings: { ...state.settings!, ...event.data.changes } };
      case 'ModuleDeleted':
        return { ...state, deleted: true };
    }
  },
};
