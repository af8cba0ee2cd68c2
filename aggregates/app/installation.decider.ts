import { DomainError, invalid, notFound } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import { sameJson } from '../kernel/same-json.js';
import type { InstallationCredentials, InstallationEvent } from './installation.events.js';
import { checkSettingValues, withDefaults, type SettingsSchema, type SettingValue } from './app.settings-schema.js';

export type InstallationCommand =
  /** `installable`: the app is this company's own (any review state) or an approved public app, loaded by the handler. */
  | { type: 'InstallApp'; appUuid: string; appTenant: string; installable: boolean; schema: SettingsSchema; settings: Record<string, unknown>; credentials: InstallationCredentials; scopes?: string[] }
  | { type: 'UninstallApp'; keepData: boolean; reason: string }
  | { type: 'RotateCredentials'; credentials: InstallationCredentials; previousValidUntil: number }
  | { type: 'ChangeState'; set: Record<string, unknown>; removed: string[] }
  | { type: 'ChangeSettings'; schema: SettingsSchema; changes: Record<string, unknown> }
  | { type: 'ChangeUserSettings'; schema: SettingsSchema; userUuid: string; changes: Record<string, unknown> }
  | { type: 'SetSecret'; name: string; ciphertext: string }
  | { type: 'DeleteSecret'; name: string }
  | { type: 'ConnectOAuth'; connectionId: string; provider: string; scope: string; expiresAt: number | null; tokens: string }
  | { type: 'RevokeOAuth'; providerOrConnectionId: string };

export interface InstallationState {
  installed: boolean;
  appUuid: string;
  state: Record<string, unknown>;
  settings: Record<string, SettingValue>;
  secrets: ReadonlySet<string>;
  connections: ReadonlyMap<string, string>;
}

export const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;

function installed(s: InstallationState) {
  if (!s.installed) throw notFound('App installation', s.appUuid || 'requested');
}

function changedKeys(current: Record<string, unknown>, changes: Record<string, unknown>) {
  return Object.entries(changes).filter(([k, v]) => (v === null ? k in current : !sameJson(current[k], v)));
}

export const installationDecider: Decider<InstallationState, InstallationCommand, InstallationEvent> = {
  initialState: () => ({ installed: false, appUuid: '', state: {}, settings: {}, secrets: new Set(), connections: new Map() }),
  decide(command, s) {
    switch (command.type) {
      case 'InstallApp': {
        if (s.installed) throw new DomainError('CONFLICT', 'the app is installed already', [{ message: 'This company has the app installed', type: 'GENERAL', correctionSuggestion: 'Uninstall it first, or change the settings of its installation' }]);
        if (!command.installable) {
          throw new DomainError('STATE_NOT_ALLOWED', 'the app is not approved', [{ message: 'Only an approved public app, or an app this company created, can be installed', type: 'GENERAL', correctionSuggestion: 'Wait until the app passes its review' }]);
        }
        checkSettingValues(command.schema, 'COMPANY', command.settings, { complete: true });
        const settings = withDefaults(command.schema, 'COMPANY', command.settings as Record<string, SettingValue>);
        return [
          { type: 'AppInstalled', version: 1, data: { appUuid: command.appUuid, appTenant: command.appTenant, settings, credentials: command.credentials } },
          ...(command.scopes?.length ? [{ type: 'InstallationScopesGranted' as const, version: 1 as const, data: { scopes: [...new Set(command.scopes)].sort() } }] : []),
        ];
      }
      case 'UninstallApp':
        installed(s);
        return [{ type: 'AppUninstalled', version: 1, data: { appUuid: s.appUuid, keepData: command.keepData, reason: command.reason } }];
      case 'RotateCredentials':
        installed(s);
        return [{ type: 'AppCredentialsRotated', version: 1, data: { credentials: command.credentials, previousValidUntil: command.previousValidUntil } }];
      case 'ChangeState': {
        installed(s);
        const set = Object.fromEntries(changedKeys(s.state, command.set));
        const removed = command.removed.filter((k) => k in s.state);
        return Object.keys(set).length || removed.length ? [{ type: 'InstallationStateChanged', version: 1, data: { set, removed } }] : [];
      }
      case 'ChangeSettings': {
        installed(s);
        checkSettingValues(command.schema, 'COMPANY', command.changes);
        const changes = Object.fromEntries(changedKeys(s.settings, command.changes)) as Record<string, SettingValue | null>;
        return Object.keys(changes).length ? [{ type: 'InstallationSettingsChanged', version: 1, data: { changes } }] : [];
      }
      case 'ChangeUserSettings': {
        installed(s);
        checkSettingValues(command.schema, 'USER', command.changes);
        const changes = Object.fromEntries(Object.entries(command.changes)) as Record<string, SettingValue | null>;
        return Object.keys(changes).length ? [{ type: 'InstallationUserSettingsChanged', version: 1, data: { userUuid: command.userUuid, changes } }] : [];
      }
      case 'SetSecret':
        installed(s);
        if (!SECRET_NAME.test(command.name)) throw invalid('name', 'a secret name is a letter, then up to 99 letters, digits, _ . or -', 'Use a name like apiKey or stripe.key');
        return [{ type: 'InstallationSecretSet', version: 1, data: { name: command.name, ciphertext: command.ciphertext } }];
      case 'DeleteSecret':
        installed(s);
        if (!s.secrets.has(command.name)) throw notFound('Secret', command.name);
        return [{ type: 'InstallationSecretDeleted', version: 1, data: { name: command.name } }];
      case 'ConnectOAuth':
        installed(s);
        return [{ type: 'InstallationOAuthConnected', version: 1, data: { connectionId: command.connectionId, provider: command.provider, scope: command.scope, expiresAt: command.expiresAt, tokens: command.tokens } }];
      case 'RevokeOAuth': {
        installed(s);
        const hits = [...s.connections].filter(([id, provider]) => id === command.providerOrConnectionId || provider === command.providerOrConnectionId);
        if (!hits.length) throw notFound('Connection', command.providerOrConnectionId);
        return hits.map(([connectionId, provider]) => ({ type: 'InstallationOAuthRevoked' as const, version: 1 as const, data: { connectionId, provider } }));
      }
    }
  },
  evolve(s, event) {
    switch (event.type) {
      case 'AppInstalled':
        return { ...s, installed: true, appUuid: event.data.appUuid, settings: { ...s.settings, ...event.data.settings } };
      case 'AppUninstalled':
        return event.data.keepData ? { ...s, installed: false } : { ...installationDecider.initialState(), appUuid: s.appUuid };
      case 'AppCredentialsRotated':
        return s;
      case 'InstallationStateChanged': {
        const state = { ...s.state, ...event.data.set };
        for (const k of event.data.removed) delete state[k];
        return { ...s, state };
      }
      case 'InstallationSettingsChanged': {
        const settings = { ...s.settings };
        for (const [k, v] of Object.entries(event.data.changes)) {
          if (v === null) delete settings[k];
          else settings[k] = v;
        }
        return { ...s, settings };
      }
      case 'InstallationUserSettingsChanged':
      case 'InstallationScopesGranted':
        return s;
      case 'InstallationSecretSet':
        return { ...s, secrets: new Set([...s.secrets, event.data.name]) };
      case 'InstallationSecretDeleted':
        return { ...s, secrets: new Set([...s.secrets].filter((n) => n !== event.data.name)) };
      case 'InstallationOAuthConnected':
        return { ...s, connections: new Map([...s.connections, [event.data.connectionId, event.data.provider]]) };
      case 'InstallationOAuthRevoked': {
        const connections = new Map(s.connections);
        connections.delete(event.data.connectionId);
        return { ...s, connections };
      }
    }
  },
};
