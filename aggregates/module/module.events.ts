import { z } from 'zod';
import { moduleSettingsSchema } from './module.schemas.js';

const uuid = z.string().uuid();

/** `ownerUuid` null: a company module; a user's uuid: that user's personal module. */
export const moduleCreated = z.object({ type: z.literal('ModuleCreated'), version: z.literal(1), data: moduleSettingsSchema.extend({ moduleUuid: uuid, ownerUuid: uuid.nullable() }) });
export const moduleUpdated = z.object({ type: z.literal('ModuleUpdated'), version: z.literal(1), data: z.object({ changes: moduleSettingsSchema.partial() }) });
export const moduleDeleted = z.object({ type: z.literal('ModuleDeleted'), version: z.literal(1), data: z.object({ moduleUuid: uuid }) });

export const moduleEventSchema = z.discriminatedUnion('type', [moduleCreated, moduleUpdated, moduleDeleted]);
export type ModuleEvent = z.infer<typeof moduleEventSchema>;
export const moduleEventTypes = moduleEventSchema.options.map((o) => o.shape.type.value);

export const MODULE_STREAM_PREFIX = 'cms-module-';
export const moduleStream = (moduleUuid: string) => `${MODULE_STREAM_PREFIX}${moduleUuid}`;
export const moduleUuidOfStream = (streamId: string) => streamId.slice(MODULE_STREAM_PREFIX.length);
