import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { appUuidOfStream } from '../../aggregates/app/app.events.js';
import { checkSettingsSchema } from '../../aggregates/app/app.settings-schema.js';
import { moduleSettingsSchema } from '../../aggregates/module/module.schemas.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { appByUuid, cmsModulesOf, type AppRow } from '../../read-models/apps.queries.js';
import type { Db } from '../db/db.js';
import type { ObjectStorage } from '../files/storage/storage.port.js';
import type { Reactor } from '../reactors/runner.js';
import type { AppsService } from './apps.service.js';

/**
 * What keeps the app's current manifest and build from running on the shared runtime of version 2
 * (docs/apps.md, migrate-v2): every reason, or none. The platform calls a version 2 app at its
 * webhookUrl, so what is called (ACTION fields, BUTTON bars) needs one; iframe bars need their url;
 * the settings schema and the CMS catalog must still pass today's checks; a published module
 * package must still be in the files storage.
 */
export async function rebuildProblems(db: Db, storage: ObjectStorage, app: AppRow): Promise<string[]> {
  const reasons: string[] = [];
  try {
    checkSettingsSchema(app.settings_schema);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    reasons.push(...err.details.map((d) => d.message));
  }
  if (!app.webhook_url) {
    for (const f of app.settings_schema.filter((f) => f.type === 'ACTION')) reasons.push(`the ACTION setting ${f.name} needs the app's webhookUrl`);
    for (const b of app.app_bars.filter((b) => b.type === 'BUTTON')) reasons.push(`the BUTTON app bar ${b.label} needs the app's webhookUrl`);
  }
  for (const b of app.app_bars.filter((b) => b.type === 'IFRAME' && !b.url)) reasons.push(`the IFRAME app bar ${b.label} has no url`);
  for (const m of await cmsModulesOf(db, app.app_uuid)) {
    if (!m.retired && !moduleSettingsSchema.safeParse(m.definition).success) reasons.push(`the CMS module ${m.name} does not pass the module checks`);
  }
  if (app.cms_package && !(await storage.exists(app.cms_package.key))) reasons.push('the published CMS module package is missing from the files storage');
  return reasons;
}

/**
 * The rebuild of migrate-v2: for each AppMigrationToV2Requested, checks the app as it is now and
 * answers with a command (CompleteRuntimeBuild: READY, or FAILED with the reasons). At least once:
 * the decider ignores an outcome for a build that is not the app's current one.
 */
export function runtimeBuildReactor(deps: { db: Db; apps: AppsService; storage: ObjectStorage }): Reactor<void> {
  return {
    name: 'reactor:app-runtime-build',
    handles: (e) => e.type === 'AppMigrationToV2Requested',
    async prepare(events: StoredEvent[]) {
      for (const event of events) {
        const appUuid = appUuidOfStream(event.streamId);
        const app = await appByUuid(deps.db, appUuid);
        if (!app) continue;
        const reasons = await rebuildProblems(deps.db, deps.storage, app);
        const { buildId } = event.data as { buildId: string };
        const ctx = { tenant: event.tenant, userUuid: null, requestId: event.metadata.requestId, correlationId: event.metadata.correlationId, causationId: `${event.streamId}@${event.revision}`, now: Date.now() };
        await deps.apps.onApp(ctx, appUuid, { type: 'CompleteRuntimeBuild', buildId, reasons });
      }
    },
    async commit() {},
  };
}
