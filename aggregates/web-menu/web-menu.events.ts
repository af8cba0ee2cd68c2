import { z } from 'zod';

const uuid = z.string().uuid();
const items = z.array(z.unknown());

export const webMenuCreated = z.object({
  type: z.literal('WebMenuCreated'),
  version: z.literal(1),
  data: z.object({ menuUuid: uuid, name: z.string(), label: z.string(), environment: z.string(), items }),
});
export const webMenuUpdated = z.object({
  type: z.literal('WebMenuUpdated'),
  version: z.literal(1),
  data: z.object({ changes: z.object({ name: z.string().optional(), label: z.string().optional(), environment: z.string().optional(), items: items.optional() }) }),
});
export const webMenuDeleted = z.object({ type: z.literal('WebMenuDeleted'), version: z.literal(1), data: z.object({ menuUuid: uuid }) });
export const webMenuRestored = z.object({ type: z.literal('WebMenuRestored'), version: z.literal(1), data: z.object({ menuUuid: uuid }) });

export const webMenuEventSchema = z.discriminatedUnion('type', [webMenuCreated, webMenuUpdated, webMenuDeleted, webMenuRestored]);
export type WebMenuEvent = z.infer<typeof webMenuEventSchema>;
export const webMenuEventTypes = webMenuEventSchema.options.map((o) => o.shape.type.value);

export const WEB_MENU_STREAM_PREFIX = 'web-menu-';
export const webMenuStream = (menuUuid: string) => `${WEB_MENU_STREAM_PREFIX}${menuUuid}`;
export const webMenuUuidOfStream = (streamId: string) => streamId.slice(WEB_MENU_STREAM_PREFIX.length);
