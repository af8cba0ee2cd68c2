import { describe, expect, it } from 'vitest';
import { installationDecider, type InstallationCommand } from '../../aggregates/app/installation.decider.js';
import { installationEventSchema, type InstallationEvent } from '../../aggregates/app/installation.events.js';
import type { SettingsSchema } from '../../aggregates/app/app.settings-schema.js';
import { given } from '../support/decider-spec.js';

const A = '00000000-0000-4000-8000-0000000000a1';
const U = '00000000-0000-4000-8000-0000000000b1';
const C1 = '00000000-0000-4000-8000-0000000000c1';
const C2 = '00000000-0000-4000-8000-0000000000c2';
const schema = { schema: installationEventSchema };
const field = (name: string, o: Partial<SettingsSchema[number]> = {}): SettingsSchema[number] => ({ name, label: name, description: '', type: 'TEXT', scope: 'COMPANY', required: false, default: null, options: null, optionsUrl: null, ...o });
const settingsSchema: SettingsSchema = [field('region', { default: 'eu' }), field('apiHost', { required: true }), field('theme', { scope: 'USER' })];
const credentials = { signingSecret: 'enc', clientId: 'id', clientSecretHash: 'hash' };
const install = (o: Partial<Extract<InstallationCommand, { type: 'InstallApp' }>> = {}): InstallationCommand => ({ type: 'InstallApp', appUuid: A, appTenant: 'dev', installable: true, schema: settingsSchema, settings: { apiHost: 'h' }, credentials, ...o });
const installed: InstallationEvent = { type: 'AppInstalled', version: 1, data: { appUuid: A, appTenant: 'dev', settings: { region: 'eu', apiHost: 'h' }, credentials } };
const connect = (connectionId: string, provider: string): InstallationEvent => ({ type: 'InstallationOAuthConnected', version: 1, data: { connectionId, provider, scope: 'read', expiresAt: null, tokens: 'enc' } });

describe('installation decider', () => {
  it('installs an approved app once, with the schema defaults; refuses one not approved or missing a required setting', () => {
    given(installationDecider, [], schema).when(install()).then([installed]);
    given(installationDecider, [installed], schema).when(install()).thenFails('CONFLICT', 'Uninstall it first');
    given(installationDecider, [], schema).when(install({ installable: false })).thenFails('STATE_NOT_ALLOWED', 'approved');
    given(installationDecider, [], schema).when(install({ settings: {} })).thenFails('VALIDATION_FAILED', 'apiHost');
  });

  it('every other command needs the installation; uninstalling without keeping data forgets the settings', () => {
    for (const command of [{ type: 'UninstallApp', keepData: false, reason: '' }, { type: 'DeleteSecret', name: 'k' }, { type: 'RevokeOAuth', providerOrConnectionId: 'github' }] as InstallationCommand[]) {
      given(installationDecider, [], schema).when(command).thenFails('NOT_FOUND');
    }
    const gone: InstallationEvent = { type: 'AppUninstalled', version: 1, data: { appUuid: A, keepData: false, reason: 'bye' } };
    given(installationDecider, [installed], schema).when({ type: 'UninstallApp', keepData: false, reason: 'bye' }).then([gone]);
    expect(given(installationDecider, [installed, gone]).state.settings).toEqual({});
    const kept: InstallationEvent = { type: 'AppUninstalled', version: 1, data: { appUuid: A, keepData: true, reason: '' } };
    expect(given(installationDecider, [installed, kept]).state.settings).toEqual({ region: 'eu', apiHost: 'h' });
  });

  it('settings and state changes emit only what changed; null removes; a USER field is refused on the company settings', () => {
    given(installationDecider, [installed], schema).when({ type: 'ChangeSettings', schema: settingsSchema, changes: { region: 'eu' } }).then([]);
    given(installationDecider, [installed], schema).when({ type: 'ChangeSettings', schema: settingsSchema, changes: { region: 'us', apiHost: 'h' } }).then([{ type: 'InstallationSettingsChanged', version: 1, data: { changes: { region: 'us' } } }]);
    given(installationDecider, [installed], schema).when({ type: 'ChangeSettings', schema: settingsSchema, changes: { theme: 'dark' } }).thenFails('VALIDATION_FAILED', 'USER-scoped');
    given(installationDecider, [installed], schema).when({ type: 'ChangeUserSettings', schema: settingsSchema, userUuid: U, changes: { theme: 'dark' } }).then([{ type: 'InstallationUserSettingsChanged', version: 1, data: { userUuid: U, changes: { theme: 'dark' } } }]);
    const set: InstallationEvent = { type: 'InstallationStateChanged', version: 1, data: { set: { cursor: 1 }, removed: [] } };
    given(installationDecider, [installed], schema).when({ type: 'ChangeState', set: { cursor: 1 }, removed: ['never'] }).then([set]);
    given(installationDecider, [installed, set], schema).when({ type: 'ChangeState', set: { cursor: 1 }, removed: [] }).then([]);
    given(installationDecider, [installed, set], schema).when({ type: 'ChangeState', set: {}, removed: ['cursor'] }).then([{ type: 'InstallationStateChanged', version: 1, data: { set: {}, removed: ['cursor'] } }]);
  });

  it('secrets: a bad name is refused, only a set secret is deleted', () => {
    const secret: InstallationEvent = { type: 'InstallationSecretSet', version: 1, data: { name: 'apiKey', ciphertext: 'enc' } };
    given(installationDecider, [installed], schema).when({ type: 'SetSecret', name: 'apiKey', ciphertext: 'enc' }).then([secret]);
    given(installationDecider, [installed], schema).when({ type: 'SetSecret', name: '1bad name', ciphertext: 'enc' }).thenFails('VALIDATION_FAILED', 'secret name');
    given(installationDecider, [installed], schema).when({ type: 'DeleteSecret', name: 'apiKey' }).thenFails('NOT_FOUND', 'apiKey');
    given(installationDecider, [installed, secret], schema).when({ type: 'DeleteSecret', name: 'apiKey' }).then([{ type: 'InstallationSecretDeleted', version: 1, data: { name: 'apiKey' } }]);
  });

  it('revoking by provider revokes each of its connections; by id only that one', () => {
    const history = [installed, connect(C1, 'github'), connect(C2, 'github')];
    given(installationDecider, history, schema).when({ type: 'RevokeOAuth', providerOrConnectionId: 'github' }).then([
      { type: 'InstallationOAuthRevoked', version: 1, data: { connectionId: C1, provider: 'github' } },
      { type: 'InstallationOAuthRevoked', version: 1, data: { connectionId: C2, provider: 'github' } },
    ]);
    given(installationDecider, history, schema).when({ type: 'RevokeOAuth', providerOrConnectionId: C2 }).then([{ type: 'InstallationOAuthRevoked', version: 1, data: { connectionId: C2, provider: 'github' } }]);
    given(installationDecider, history, schema).when({ type: 'RevokeOAuth', providerOrConnectionId: 'gitlab' }).thenFails('NOT_FOUND', 'gitlab');
  });
});
