import { z } from 'zod';
import { deployManifestSchema } from './deploy.manifest.js';

const uuid = z.string().uuid();

/** A build deployed: its manifest and its CommonJS bundle (JavaScript source), numbered from 1 per app. */
export const appDeployCreated = z.object({
  type: z.literal('AppDeployCreated'),
  version: z.literal(1),
  data: z.object({ deployUuid: uuid, appUuid: uuid, number: z.number().int().min(1), manifest: deployManifestSchema, code: z.string(), sha256: z.string(), note: z.string() }),
});
/** The active deploy moved: to a new deploy (DEPLOY) or back to an earlier one (ROLLBACK). */
export const appDeployActivated = z.object({
  type: z.literal('AppDeployActivated'),
  version: z.literal(1),
  data: z.object({ deployUuid: uuid, previousDeployUuid: uuid.nullable(), reason: z.enum(['DEPLOY', 'ROLLBACK']) }),
});

export const deployEventSchema = z.discriminatedUnion('type', [appDeployCreated, appDeployActivated]);
export type DeployEvent = z.infer<typeof deployEventSchema>;
export const deployEventTypes = deployEventSchema.options.map((o) => o.shape.type.value);

/** All the deploys of one app: one stream in the creator company's tenant. */
// Not under `app-`: an append there makes every company's CMS caches forget (src/webpages/cms-cache.ts).
export const DEPLOY_STREAM_PREFIX = 'deploys-';
export const deployStream = (appUuid: string) => `${DEPLOY_STREAM_PREFIX}${appUuid}`;
/** The app uuid a deploys stream is named by (the inverse of `deployStream`). */
export const appUuidOfDeployStream = (streamId: string) => streamId.slice(DEPLOY_STREAM_PREFIX.length);
