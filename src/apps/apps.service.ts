import { randomUUID } from 'node:crypto';
import { appDecider, type AppCommand } from '../../aggregates/app/app.decider.js';
import { appStream, type AppProfile, type ReviewOutcome } from '../../aggregates/app/app.events.js';
import { installationDecider, type InstallationCommand } from '../../aggregates/app/installation.decider.js';
import { installationStream } from '../../aggregates/app/installation.events.js';
import { notFound } from '../../aggregates/kernel/errors.js';
import { appByUuid, cmsModulesOf, installationOf, listApps, type AppRow, type InstallationRow } from '../../read-models/apps.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { issueCredentials, type IssuedCredentials } from './credentials.js';
import type { SecretBox } from './secret-box.js';
import type { ModuleSettings } from '../../aggregates/module/module.schemas.js';
import { forgetActors } from '../auth/actor-cache.js';

/** A profile as PUT sends it: app bars may come without a uuid (a new bar). */
export type ProfileInput = Omit<AppProfile, 'appBars'> & { appBars: (Omit<AppProfile['appBars'][number], 'uuid'> & { uuid?: string })[] };

/**
 * Apps and their installations. An app lives in its creator's tenant; it is visible to every
 * company once approved (public) or only to its creator (private, or not yet approved): anything
 * else is the same 404 as a missing app.
 */
export function makeAppsService(deps: { db: Db; store: EventStore; box: SecretBox; graceMs: number }) {
  const { db, store, box } = deps;

  const visible = (tenant: string, row: AppRow | null): row is AppRow =>
    !!row && (row.tenant === tenant || (row.visibility === 'PUBLIC' && row.review_state === 'APPROVED'));

  async function visibleApp(tenant: string, appUuid: string): Promise<AppRow> {
    const row = await appByUuid(db, appUuid);
    if (!visible(tenant, row)) throw notFound('App', appUuid);
    return row;
  }

  async function ownApp(tenant: string, appUuid: string): Promise<AppRow> {
    const row = await appByUuid(db, appUuid);
    if (!row || row.tenant !== tenant) throw notFound('App', appUuid);
    return row;
  }

  const onApp = (ctx: CommandContext, appUuid: string, command: AppCommand) => handleCommand({ store, decider: appDecider, streamId: appStream(appUuid), command, context: ctx });
  const onInstallation = (ctx: CommandContext, appUuid: string, command: InstallationCommand) =>
    handleCommand({ store, decider: installationDecider, streamId: installationStream(appUuid), command, context: ctx });

  /** The installation of a visible app in the tenant; not installed is a 404. */
  async function installed(tenant: string, appUuid: string): Promise<{ app: AppRow; installation: InstallationRow }> {
    const app = await visibleApp(tenant, appUuid);
    const installation = await installationOf(db, tenant, appUuid);
    if (!installation?.installed) throw notFound('App installation', appUuid);
    return { app, installation };
  }

  async function install(ctx: CommandContext, appUuid: string, settings: Record<string, unknown>): Promise<{ installation: InstallationRow; credentials: IssuedCredentials }> {
    const app = await visibleApp(ctx.tenant, appUuid);
    const { clear, stored } = issueCredentials(box, ctx.tenant, appUuid);
    // The creator company installs and uses its own app in any review state (spec 4.17 "published
    // for the creator's company"); every other company only an APPROVED public app.
    const installable = app.tenant === ctx.tenant || (app.review_state === 'APPROVED' && app.visibility === 'PUBLIC');
    await onInstallation(ctx, appUuid, { type: 'InstallApp', appUuid, appTenant: app.tenant, installable, schema: app.settings_schema, settings, credentials: stored, scopes: app.scopes ?? [] });
    return { installation: (await installationOf(db, ctx.tenant, appUuid))!, credentials: clear };
  }

  return {
    visibleApp,
    ownApp,
    installed,
    install,

    async create(ctx: CommandContext, visibility: 'PUBLIC' | 'PRIVATE', input: { label: string; description: string }) {
      const appUuid = randomUUID();
      await onApp(ctx, appUuid, { type: 'CreateApp', appUuid, visibility, ...input });
      // A private app is installed for its company at once (its credentials are rotated to be read).
      if (visibility === 'PRIVATE') await install(ctx, appUuid, {});
      return ownApp(ctx.tenant, appUuid);
    },

    async updateProfile(ctx: CommandContext, appUuid: string, input: ProfileInput) {
      await ownApp(ctx.tenant, appUuid);
      const profile: AppProfile = { ...input, appBars: input.appBars.map((b) => ({ ...b, uuid: b.uuid ?? randomUUID() })) };
      await onApp(ctx, appUuid, { type: 'UpdateApp', profile });
      return ownApp(ctx.tenant, appUuid);
    },

    async submit(ctx: CommandContext, appUuid: string, note: string) {
      await ownApp(ctx.tenant, appUuid);
      await onApp(ctx, appUuid, { type: 'SubmitApp', note });
      return ownApp(ctx.tenant, appUuid);
    },

    /** A SUPER_ADMIN's review: written in the app's own tenant, whichever company the reviewer selected. */
    async review(ctx: CommandContext, appUuid: string, input: { outcome: ReviewOutcome; feedback: string; reviewerNotes: string }) {
      const app = await appByUuid(db, appUuid);
      if (!app || app.visibility !== 'PUBLIC') throw notFound('App', appUuid);
      await onApp({ ...ctx, tenant: app.tenant }, appUuid, { type: 'ReviewApp', ...input, reviewerUuid: ctx.userUuid });
      return (await appByUuid(db, appUuid))!;
    },

    list: (tenant: string, o: { own: boolean; query?: string; limit: number; offset: number }) => listApps(db, tenant, o),

    async uninstall(ctx: CommandContext, appUuid: string, input: { keepData: boolean; reason: string }) {
      await installed(ctx.tenant, appUuid);
      await onInstallation(ctx, appUuid, { type: 'UninstallApp', ...input });
      // The app's access tokens end with the installation: no cached actor outlives it (src/auth/app-tokens.ts).
      await forgetActors();
      return (await installationOf(db, ctx.tenant, appUuid))!;
    },

    async rotate(ctx: CommandContext, appUuid: string, graceMs: number | undefined) {
      await installed(ctx.tenant, appUuid);
      const { clear, stored } = issueCredentials(box, ctx.tenant, appUuid);
      const grace = Math.min(graceMs ?? deps.graceMs, deps.graceMs);
      await onInstallation(ctx, appUuid, { type: 'RotateCredentials', credentials: stored, previousValidUntil: ctx.now + grace });
      await forgetActors();
      return { installation: (await installationOf(db, ctx.tenant, appUuid))!, credentials: clear };
    },

    onInstallation,
    onApp,

    /** The catalog with its retired modules: for every company that can see the app. */
    async cmsModules(tenant: string, appUuid: string) {
      await visibleApp(tenant, appUuid);
      return cmsModulesOf(db, appUuid);
    },

    /** Replaces the catalog (creator only): modules missing from `modules` are retired, never deleted. */
    async replaceCmsModules(ctx: CommandContext, appUuid: string, modules: ModuleSettings[]) {
      await ownApp(ctx.tenant, appUuid);
      await onApp(ctx, appUuid, { type: 'ReplaceCmsModules', modules });
      return cmsModulesOf(db, appUuid);
    },
  };
}
export type AppsService = ReturnType<typeof makeAppsService>;
