import type { Decider } from '../kernel/decider.js';
import { DomainError, invalid, notFound } from '../kernel/errors.js';
import type { EnvironmentEvent, EnvironmentSettings } from './environment.events.js';

export type EnvironmentInput = Partial<Omit<EnvironmentSettings, 'envUuid'>> & { key?: string };

export type EnvironmentCommand =
  | { type: 'CreateEnvironment'; envUuid: string; key: string; input: EnvironmentInput }
  | { type: 'UpdateEnvironment'; key: string; input: EnvironmentInput }
  | { type: 'DeleteEnvironment'; key: string; pageCount: number };

/** The company's environments by key, in creation order. */
export interface EnvironmentsState {
  envs: Record<string, EnvironmentSettings>;
}

export const ENV_KEY = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const MAX_ENVIRONMENTS = 50;

const defaultKey = (s: EnvironmentsState) => Object.keys(s.envs).find((k) => s.envs[k]!.default);
const unsetDefault = (key: string): EnvironmentEvent => ({ type: 'EnvironmentUpdated', version: 1, data: { key, changes: { default: false } } });

export const environmentDecider: Decider<EnvironmentsState, EnvironmentCommand, EnvironmentEvent> = {
  initialState: () => ({ envs: {} }),
  decide(command, state) {
    const current = defaultKey(state);
    switch (command.type) {
      case 'CreateEnvironment': {
        const { key, input } = command;
        if (!ENV_KEY.test(key)) throw invalid('body.key', `body.key: "${key.slice(0, 60)}" is not a key`, 'Use 1-63 lowercase letters, digits, _ and -, starting with a letter or digit', 'INVALID_VALUE');
        if (state.envs[key]) throw new DomainError('CONFLICT', `environment ${key} exists`, [{ message: `The company already has an environment with key ${key}`, type: 'GENERAL', correctionSuggestion: `Use another key, or change environment ${key}` }]);
        if (Object.keys(state.envs).length >= MAX_ENVIRONMENTS) throw invalid('body.key', `a company has at most ${MAX_ENVIRONMENTS} environments`, 'Delete an unused environment first', 'INVALID_VALUE');
        const makeDefault = current === undefined || input.default === true;
        const created: EnvironmentEvent = {
          type: 'EnvironmentCreated',
          version: 1,
          data: {
            key,
            envUuid: command.envUuid,
            label: input.label ?? key,
            routing: input.routing ?? 'path',
            slugPrefix: input.slugPrefix ?? '',
            hostLabel: input.hostLabel ?? '',
            htmlLang: input.htmlLang ?? 'en',
            requiresAuth: input.requiresAuth ?? false,
            default: makeDefault,
          },
        };
        return makeDefault && current !== undefined ? [unsetDefault(current), created] : [created];
      }
      case 'UpdateEnvironment': {
        const env = state.envs[command.key];
        if (!env) throw notFound('Environment', command.key);
        const { key: _key, ...input } = command.input;
        if (_key !== undefined && _key !== command.key) throw invalid('body.key', 'body.key: an environment key cannot change', 'Create a new environment with the new key instead', 'INVALID_VALUE');
        if (input.default === false && env.default) {
          throw invalid('body.default', 'body.default: a company keeps exactly one default environment', 'Make another environment the default instead (PUT it with default: true)', 'INVALID_VALUE');
        }
        const changes = Object.fromEntries(Object.entries(input).filter(([k, v]) => v !== undefined && env[k as keyof EnvironmentSettings] !== v));
        if (Object.keys(changes).length === 0) return [];
        const updated: EnvironmentEvent = { type: 'EnvironmentUpdated', version: 1, data: { key: command.key, changes } };
        return changes.default === true && current !== undefined && current !== command.key ? [unsetDefault(current), updated] : [updated];
      }
      case 'DeleteEnvironment': {
        const env = state.envs[command.key];
        if (!env) throw notFound('Environment', command.key);
        if (command.pageCount > 0) {
          throw new DomainError('CONFLICT', `environment ${command.key} still holds ${command.pageCount} page${command.pageCount === 1 ? '' : 's'}`, [
            { message: `The environment ${command.key} holds ${command.pageCount} page(s) and templates`, type: 'GENERAL', correctionSuggestion: 'Move or copy its pages to another environment first; an environment is deleted only when empty' },
          ]);
        }
        const deleted: EnvironmentEvent = { type: 'EnvironmentDeleted', version: 1, data: { key: command.key } };
        const heir = env.default ? Object.keys(state.envs).find((k) => k !== command.key) : undefined;
        return heir ? [deleted, { type: 'EnvironmentUpdated', version: 1, data: { key: heir, changes: { default: true } } }] : [deleted];
      }
    }
  },
  evolve(state, event) {
    const envs = { ...state.envs };
    switch (event.type) {
      case 'EnvironmentCreated': {
        const { key, ...settings } = event.data;
        envs[key] = settings;
        break;
      }
      case 'EnvironmentUpdated':
        envs[event.data.key] = { ...envs[event.data.key]!, ...event.data.changes };
        break;
      case 'EnvironmentDeleted':
        delete envs[event.data.key];
        break;
    }
    return { envs };
  },
};
