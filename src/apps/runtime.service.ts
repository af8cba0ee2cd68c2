import { z } from 'zod';
import { DomainError, invalid, notFound } from '../../aggregates/kernel/errors.js';
import { SECRET_NAME } from '../../aggregates/app/installation.decider.js';
import { checkSettingsSchema, settingsSchemaSchema, type SettingsSchema } from '../../aggregates/app/app.settings-schema.js';
import { secretsOf, userSettingsOf, type AppRow, type InstallationRow } from '../../read-models/apps.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { UrlGuard } from '../outbound/index.js';
import { callApp } from './app-calls.js';
import type { AppsService } from './apps.service.js';
import { signingSecrets } from './credentials.js';
import type { SecretBox } from './secret-box.js';

const MAX_STATE_BYTES = 64 * 1024;
export const secretAad = (tenant: string, appUuid: string, name: string) => `${tenant}:${appUuid}:secret:${name}`;
const optionsAnswer = z.union([z.array(z.object({ value: z.string().max(200), label: z.string().max(200) })).max(500), z.object({ options: z.array(z.object({ value: z.string().max(200), label: z.string().max(200) })).max(500) })]);

function checkStateSize(state: Record<string, unknown>) {
  if (Buffer.byteLength(JSON.stringify(state)) > MAX_STATE_BYTES) throw invalid('state', `the state would pass ${MAX_STATE_BYTES} bytes`, 'Keep less in the installation state, or remove keys first');
}

/**
 * The runtime of an installation (spec 4.16): state, COMPANY and USER settings, secrets, ACTION
 * triggers, dynamic options. Everything is a 404 for a company that has not installed the app.
 * A secret's value goes in sealed and never comes out of this service in clear, but to the app.
 */
export function makeRuntimeService(deps: { db: Db; apps: AppsService; box: SecretBox; guard: UrlGuard; timeoutMs: number }) {
  const { db, apps, box, guard } = deps;
  const on = apps.onInstallation;

  async function outbound(tenant: string, appUuid: string) {
    const { app, installation } = await apps.installed(tenant, appUuid);
    return { app, installation, secrets: signingSecrets(box, installation, Date.now()) };
  }

  /** POSTs a signed event to the app's webhook URL; the app's answer is not shown to the caller. */
  async function notifyApp(app: AppRow, installation: InstallationRow, secrets: string[], payload: Record<string, unknown>, extraHeaders?: Record<string, string>) {
    if (!app.webhook_url) {
      throw new DomainError('STATE_NOT_ALLOWED', 'the app has no webhook URL', [{ message: 'The app declares no webhookUrl to call', type: 'GENERAL', correctionSuggestion: 'The app\'s creator sets webhookUrl in PUT /apps/public/{uuid}' }]);
    }
    const answer = await callApp(guard, app.webhook_url, { ...payload, appUuid: app.app_uuid, companyUuid: installation.tenant }, secrets, { timeoutMs: deps.timeoutMs, extraHeaders });
    return { delivered: answer.ok, statusCode: answer.statusCode };
  }

  return {
    notifyApp,
    outbound,

    async state(tenant: string, appUuid: string) {
      return (await apps.installed(tenant, appUuid)).installation.state;
    },

    async stateKey(tenant: string, appUuid: string, key: string) {
      const state = (await apps.installed(tenant, appUuid)).installation.state;
      if (!(key in state)) throw notFound('State key', key);
      return state[key];
    },

    async changeState(ctx: CommandContext, appUuid: string, set: Record<string, unknown>, removed: string[] = []) {
      const { installation } = await apps.installed(ctx.tenant, appUuid);
      const next = { ...installation.state, ...set };
      for (const k of removed) delete next[k];
      checkStateSize(next);
      await on(ctx, appUuid, { type: 'ChangeState', set, removed });
      return (await apps.installed(ctx.tenant, appUuid)).installation.state;
    },

    async settings(tenant: string, appUuid: string, userUuid: string) {
      const { installation } = await apps.installed(tenant, appUuid);
      return { company: installation.settings, user: await userSettingsOf(db, tenant, appUuid, userUuid) };
    },

    async changeSettings(ctx: CommandContext, appUuid: string, changes: Record<string, unknown>) {
      const { app } = await apps.installed(ctx.tenant, appUuid);
      await on(ctx, appUuid, { type: 'ChangeSettings', schema: app.settings_schema, changes });
      return (await apps.installed(ctx.tenant, appUuid)).installation.settings;
    },

    async changeUserSettings(ctx: CommandContext, appUuid: string, userUuid: string, changes: Record<string, unknown>) {
      const { app } = await apps.installed(ctx.tenant, appUuid);
      await on(ctx, appUuid, { type: 'ChangeUserSettings', schema: app.settings_schema, userUuid, changes });
      return userSettingsOf(db, ctx.tenant, appUuid, userUuid);
    },

    async secretNames(tenant: string, appUuid: string) {
      await apps.installed(tenant, appUuid);
      return (await secretsOf(db, tenant, appUuid)).map((s) => ({ name: s.name, updatedAt: Number(s.updated_at) }));
    },

    /** Seals the value (bound to tenant, app and name) before it reaches a command: the log holds ciphertext only. */
    async setSecret(ctx: CommandContext, appUuid: string, name: string, value: string) {
      await apps.installed(ctx.tenant, appUuid);
      if (!SECRET_NAME.test(name)) throw invalid('name', 'a secret name is a letter, then up to 99 letters, digits, _ . or -', 'Use a name like apiKey or stripe.key');
      await on(ctx, appUuid, { type: 'SetSecret', name, ciphertext: box.seal(value, secretAad(ctx.tenant, appUuid, name)) });
      return { name };
    },

    async deleteSecret(ctx: CommandContext, appUuid: string, name: string) {
      await apps.installed(ctx.tenant, appUuid);
      await on(ctx, appUuid, { type: 'DeleteSecret', name });
    },

    /** Fires an ACTION field: the app hears of it with the settings (saved, overlaid by the draft values given); nothing is saved. */
    async triggerAction(ctx: CommandContext, appUuid: string, fieldName: string, draft: Record<string, unknown>) {
      const { app, installation, secrets } = await outbound(ctx.tenant, appUuid);
      const field = app.settings_schema.find((f) => f.name === fieldName);
      if (!field) throw notFound('Settings field', fieldName);
      if (field.type !== 'ACTION') throw invalid('fieldName', `${fieldName} is a ${field.type} field, not an ACTION`, 'Trigger a field of type ACTION');
      const user = ctx.userUuid ? await userSettingsOf(db, ctx.tenant, appUuid, ctx.userUuid) : {};
      return notifyApp(app, installation, secrets, { type: 'settings.action', field: fieldName, userUuid: ctx.userUuid, settings: { ...installation.settings, ...user, ...draft } });
    },

    /** Loads a select field's options from its optionsUrl, with the draft schema when one is given. */
    async options(tenant: string, appUuid: string, fieldName: string, draftSchema: unknown, settings: Record<string, unknown>) {
      const { app, installation, secrets } = await outbound(tenant, appUuid);
      let schema: SettingsSchema = app.settings_schema;
      if (draftSchema !== undefined) {
        const parsed = settingsSchemaSchema.safeParse(draftSchema);
        if (!parsed.success) throw invalid('settingsSchema', 'the draft settings schema is not valid', 'Send the settings schema as PUT /apps/public/{uuid} takes it');
        checkSettingsSchema(parsed.data);
        schema = parsed.data;
      }
      const field = schema.find((f) => f.name === fieldName);
      if (!field) throw notFound('Settings field', fieldName);
      if (field.type !== 'SINGLE_SELECT' && field.type !== 'MULTI_SELECT') throw invalid('fieldName', `${fieldName} is a ${field.type} field`, 'Ask for the options of a SINGLE_SELECT or MULTI_SELECT field');
      if (!field.optionsUrl) return field.options ?? [];
      const answer = await callApp(guard, field.optionsUrl, { type: 'settings.options', field: fieldName, appUuid, companyUuid: installation.tenant, settings }, secrets, { timeoutMs: deps.timeoutMs });
      const parsed = answer.ok ? optionsAnswer.safeParse(answer.json) : null;
      if (!parsed?.success) {
        throw new DomainError('STATE_NOT_ALLOWED', 'the app answered no options', [
          { message: `The options URL answered ${answer.statusCode} without a list of {value, label}`, type: 'PLATFORM_ERROR', correctionSuggestion: 'The app answers 200 with [{value, label}] or {options: [{value, label}]}' },
        ]);
      }
      return Array.isArray(parsed.data) ? parsed.data : parsed.data.options;
    },
  };
}
export type RuntimeService = ReturnType<typeof makeRuntimeService>;
