import { z } from 'zod';

const uuid = z.string().uuid();

/** The CMS v2 web project a company attaches (made by hand in the v2 runtime): where its content lives. */
export const webProjectSchema = z.object({
  projectId: z.string(),
  name: z.string(),
  repository: z.string(),
  schema: z.string(),
  /** The hostname the v2 project answers on before the cutover (a preview host), or null. */
  previewHostname: z.string().nullable(),
});
export type WebProject = z.infer<typeof webProjectSchema>;

/** What served the live hostname before the cutover: the company's v1 site, restored by a rollback. */
export const v1ProjectSchema = z.object({ hostname: z.string(), subdomain: z.string() });
export type V1Project = z.infer<typeof v1ProjectSchema>;

/** The live site on the v2 runtime: the hostname moved and the schema and repository that serve it. */
export const v2LiveSchema = z.object({ hostname: z.string(), schema: z.string(), repository: z.string() });
export type V2Live = z.infer<typeof v2LiveSchema>;

export const cmsTransferAttached = z.object({
  type: z.literal('CmsTransferAttached'),
  version: z.literal(1),
  data: z.object({ transferUuid: uuid, project: webProjectSchema }),
});
export const cmsTransferCutOver = z.object({
  type: z.literal('CmsTransferCutOver'),
  version: z.literal(1),
  data: z.object({ transferUuid: uuid, live: v2LiveSchema, v1: v1ProjectSchema }),
});
export const cmsTransferRolledBack = z.object({
  type: z.literal('CmsTransferRolledBack'),
  version: z.literal(1),
  data: z.object({ transferUuid: uuid, hostname: z.string(), v1: v1ProjectSchema, reason: z.string() }),
});

export const cmsTransferEventSchema = z.discriminatedUnion('type', [cmsTransferAttached, cmsTransferCutOver, cmsTransferRolledBack]);
export type CmsTransferEvent = z.infer<typeof cmsTransferEventSchema>;
export const cmsTransferEventTypes = cmsTransferEventSchema.options.map((o) => o.shape.type.value);

/** One stream per company: its transfers in order (each attach starts a transfer). */
export const CMS_TRANSFER_STREAM_PREFIX = 'cms-transfer';
export const cmsTransferStream = CMS_TRANSFER_STREAM_PREFIX;
