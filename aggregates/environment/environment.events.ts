import { z } from 'zod';

/** A company environment of the CMS (spec 2.6), minus its key. */
export const environmentSettingsSchema = z.object({
  envUuid: z.string().uuid(),
  label: z.string(),
  routing: z.string(),
  slugPrefix: z.string(),
  hostLabel: z.string(),
  htmlLang: z.string(),
  requiresAuth: z.boolean(),
  default: z.boolean(),
});
export type EnvironmentSettings = z.infer<typeof environmentSettingsSchema>;

export const environmentCreated = z.object({ type: z.literal('EnvironmentCreated'), version: z.literal(1), data: environmentSettingsSchema.extend({ key: z.string() }) });
export const environmentUpdated = z.object({
  type: z.literal('EnvironmentUpdated'),
  version: z.literal(1),
  data: z.object({ key: z.string(), changes: environmentSettingsSchema.omit({ envUuid: true }).partial() }),
});
export const environmentDeleted = z.object({ type: z.literal('EnvironmentDeleted'), version: z.literal(1), data: z.object({ key: z.string() }) });

export const environmentEventSchema = z.discriminatedUnion('type', [environmentCreated, environmentUpdated, environmentDeleted]);
export type EnvironmentEvent = z.infer<typeof environmentEventSchema>;
export const environmentEventTypes = environmentEventSchema.options.map((o) => o.shape.type.value);

/** One stream per company holds all its environments: a key unique and exactly one default are one aggregate's rules. */
/** One stream per company: key uniqueness and the one default hold without races. */
export const ENVIRONMENTS_STREAM_PREFIX = 'cms-environments';
export const environmentsStream = ENVIRONMENTS_STREAM_PREFIX;
