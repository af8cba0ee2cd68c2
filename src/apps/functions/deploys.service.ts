import { createHash, randomUUID } from 'node:crypto';
import { deployDecider, type DeployCommand } from '../../../aggregates/app-deploy/deploy.decider.js';
import { deployStream } from '../../../aggregates/app-deploy/deploy.events.js';
import type { DeployManifest } from '../../../aggregates/app-deploy/deploy.manifest.js';
import { invalid, notFound } from '../../../aggregates/kernel/errors.js';
import { problems } from '../../../aggregates/kernel/problems.js';
import { deployByUuid, listDeploys } from '../../../read-models/app-functions.queries.js';
import { handleCommand, type CommandContext } from '../../commands/command-handler.js';
import type { Db } from '../../db/db.js';
import type { EventStore } from '../../event-store/port.js';
import type { AppsService } from '../apps.service.js';
import type { Limits } from './limits.js';
import type { Sandbox } from './sandbox.pool.js';

/**
 * Deploys of an app's functions (docs/apps.md, "Deploys"): the creator company's, in the app's
 * deploys stream. A deploy is checked before it is kept: the bundle loads in the sandbox and
 * exports every function the manifest names.
 */
export function makeDeploysService(deps: { db: Db; store: EventStore; apps: AppsService; sandbox: Sandbox; limits: Limits; maxBytes: number }) {
  const { db, store, apps } = deps;
  const on = (ctx: CommandContext, appUuid: string, command: DeployCommand) => handleCommand({ store, decider: deployDecider, streamId: deployStream(appUuid), command, context: ctx });

  async function one(tenant: string, appUuid: string, deployUuid: string) {
    await apps.ownApp(tenant, appUuid);
    const row = await deployByUuid(db, tenant, appUuid, deployUuid);
    if (!row) throw notFound('Deploy', deployUuid);
    return row;
  }

  return {
    one,

    async create(ctx: CommandContext, appUuid: string, input: { manifest: DeployManifest; code: string; note: string }) {
      await apps.ownApp(ctx.tenant, appUuid);
      if (Buffer.byteLength(input.code) > deps.maxBytes) throw invalid('code', `the bundle passes ${deps.maxBytes} bytes`, 'Bundle less code (esbuild --minify), or ask the operator for a larger APPS_DEPLOY_MAX_BYTES');
      const names = input.manifest.functions.map((f) => f.name);
      const twice = names.find((n, i) => names.indexOf(n) !== i);
      if (twice) throw invalid('manifest.functions', `the function ${twice} is named twice`, 'Name every function once');
      let exported: string[];
      try {
        exported = await deps.sandbox.exportsOf(input.code, deps.limits.forDeploy());
      } catch (err) {
        throw invalid('code', `the bundle does not load: ${(err as Error).message}`, 'Build a CommonJS bundle (esbuild --format=cjs) that runs without a module loader', 'INVALID_VALUE');
      }
      const p = problems();
      names.forEach((n, i) => {
        if (!exported.includes(n)) p.add(`manifest.functions[${i}].name`, `the bundle exports no function ${n}`, `Export it (exports.${n} = async (input, ctx) => ...), or remove it from the manifest; the bundle exports: ${exported.join(', ') || '(none)'}`);
      });
      p.throwIfAny('The manifest names functions the bundle does not export');
      const deployUuid = randomUUID();
      const sha256 = createHash('sha256').update(input.code).digest('hex');
      await on(ctx, appUuid, { type: 'CreateDeploy', deployUuid, appUuid, manifest: input.manifest, code: input.code, sha256, note: input.note });
      return one(ctx.tenant, appUuid, deployUuid);
    },

    async list(tenant: string, appUuid: string, o: { limit: number; offset: number }) {
      await apps.ownApp(tenant, appUuid);
      return listDeploys(db, tenant, appUuid, o);
    },

    async rollBack(ctx: CommandContext, appUuid: string, deployUuid: string) {
      await one(ctx.tenant, appUuid, deployUuid);
      await on(ctx, appUuid, { type: 'RollBackDeploy', deployUuid });
      return one(ctx.tenant, appUuid, deployUuid);
    },
  };
}
export type DeploysService = ReturnType<typeof makeDeploysService>;
