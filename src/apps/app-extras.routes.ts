import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { appRuntimes, runtimeStatuses } from '../../aggregates/app/app.events.js';
import type { AppRow } from '../../read-models/apps.queries.js';
import { commandContext } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { optionalBody } from '../http/optional-body.js';
import type { AppExtrasService } from './app-extras.service.js';
import { cmsModuleBody, cmsModuleSchema, toCmsModule } from './apps.routes.js';

const tags = ['apps'];
const write = { auth: { scopes: ['apps:write'] as const } };

export const runtimeSchema = z
  .object({
    appUuid: z.string(),
    platformVersion: z.number().int().describe('The version asked for: 2 from migrate-v2 on, back to 1 when the rebuild fails'),
    activeVersion: z.number().int().describe('The version that serves the app: 1 until runtimeStatus is READY'),
    runtimeStatus: z.enum(runtimeStatuses),
    runtimeError: z.string().nullable().describe('Why the last rebuild failed (runtimeStatus FAILED)'),
  })
  .meta({ id: 'AppRuntimeStatus' });
export const toRuntime = (r: AppRow): z.infer<typeof runtimeSchema> => ({
  appUuid: r.app_uuid,
  platformVersion: Number(r.platform_version ?? 1),
  activeVersion: r.platform_version === 2 && r.runtime_status === 'READY' ? 2 : 1,
  runtimeStatus: (r.runtime_status ?? 'NOT_BUILT') as z.infer<typeof runtimeSchema>['runtimeStatus'],
  runtimeError: r.runtime_error ?? null,
});

/** The CMS module package of spec 4.12 and migrate-v2 of spec 4.17 (issue 35; docs/apps.md). */
export const appExtrasRoutes = (deps: { extras: AppExtrasService; maxPackageBytes: number }): FastifyPluginAsyncZod =>
  async (app) => {
    const { extras } = deps;
    const base64Max = Math.ceil(deps.maxPackageBytes / 3) * 4;

    app.post(
      '/:appUuid/cms-modules/package',
      {
        config: write,
        // The base64 of the largest package, and room for the manifests.
        bodyLimit: base64Max + 1024 * 1024,
        schema: {
          tags,
          description: `The creator company: a staged package tarball (base64 of a tar or a .tar.gz, at most APPS_PACKAGE_MAX_BYTES: regular files and directories only, relative paths without "..") and the module manifests. The package is kept in the files storage, then the catalog is replaced as PUT /apps/{appUuid}/cms-modules does.`,
          params: z.object({ appUuid: z.uuid() }),
          body: z.object({ tarball: z.string().min(1).max(base64Max), modules: z.array(cmsModuleBody).max(200) }).meta({ id: 'AppCmsPackageBody' }),
          response: {
            200: envelope(
              z.object({ package: z.object({ sha256: z.string(), size: z.number().int(), files: z.array(z.string()), gzipped: z.boolean() }), modules: z.array(cmsModuleSchema) }).meta({ id: 'AppCmsPackagePublished' }),
            ),
          },
        },
      },
      async (request) => {
        const out = await extras.publishPackage(commandContext(request), request.params.appUuid, request.body.tarball, request.body.modules);
        return ok({ package: out.package, modules: out.modules.map(toCmsModule) }, 'published');
      },
    );

    app.post(
      '/:uuid/migrate-v2',
      {
        config: write,
        schema: {
          tags,
          description: `The creator company: migrates the app in place to the shared container runtime. Validates a single runtime (${appRuntimes.join(' or ')}), sets platformVersion 2 and schedules the rebuild; version 1 serves until runtimeStatus is READY; a FAILED rebuild leaves the app on version 1 with runtimeError. 409 while a rebuild runs or once on version 2.`,
          params: z.object({ uuid: z.uuid() }),
          body: optionalBody(z.object({ runtime: z.string().max(40).default('node22') }), () => ({ runtime: 'node22' })),
          response: { 202: envelope(runtimeSchema) },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return ok(toRuntime(await extras.migrateV2(commandContext(request), request.params.uuid, request.body.runtime)), 'rebuild scheduled');
      },
    );
  };
