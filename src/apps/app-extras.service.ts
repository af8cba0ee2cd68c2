import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ModuleSettings } from '../../aggregates/module/module.schemas.js';
import { appByUuid, cmsModulesOf } from '../../read-models/apps.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { ObjectStorage } from '../files/storage/storage.port.js';
import type { AppsService } from './apps.service.js';
import { checkPackage } from './module-package.js';

/** Where a package's bytes live in the files storage: by app and content hash, so a package sent again is the same object. */
export const packageKey = (appUuid: string, sha256: string, gzipped: boolean) => `apps/${appUuid}/packages/${sha256}.${gzipped ? 'tar.gz' : 'tar'}`;

/** CMS module packages (spec 4.12) and migrate-v2 (spec 4.17): the creator company's operations on its app. */
export function makeAppExtrasService(deps: { db: Db; apps: AppsService; storage: ObjectStorage; maxPackageBytes: number }) {
  const { db, apps, storage } = deps;
  return {
    /** Checks the package, keeps it in the files storage, then replaces the catalog as the PUT does (one append: the package and the catalog). */
    async publishPackage(ctx: CommandContext, appUuid: string, tarball: string, modules: ModuleSettings[]) {
      await apps.ownApp(ctx.tenant, appUuid);
      const checked = await checkPackage(tarball, deps.maxPackageBytes);
      const key = packageKey(appUuid, checked.sha256, checked.gzipped);
      if (!(await storage.exists(key))) await storage.put(key, Readable.from(checked.bytes), checked.gzipped ? 'application/gzip' : 'application/x-tar');
      const pkg = { key, sha256: checked.sha256, size: checked.bytes.length, files: checked.files.length, gzipped: checked.gzipped };
      await apps.onApp(ctx, appUuid, { type: 'PublishCmsPackage', package: pkg, modules });
      return { package: { sha256: pkg.sha256, size: pkg.size, files: checked.files, gzipped: pkg.gzipped }, modules: await cmsModulesOf(db, appUuid) };
    },

    /** Version 2: platformVersion 2, a rebuild scheduled (the runtime-build reactor); version 1 serves until READY. */
    async migrateV2(ctx: CommandContext, appUuid: string, runtime: string) {
      await apps.ownApp(ctx.tenant, appUuid);
      await apps.onApp(ctx, appUuid, { type: 'MigrateToV2', runtime, buildId: randomUUID() });
      return (await appByUuid(db, appUuid))!;
    },
  };
}
export type AppExtrasService = ReturnType<typeof makeAppExtrasService>;
