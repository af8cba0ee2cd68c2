import { z } from 'zod';

const uuid = z.string().uuid();

/** Where a clone stops: a log position (inclusive) and/or a time (epoch ms, inclusive); both null: the log's head when asked. */
export const sandboxAsOf = z.object({ position: z.number().int().nullable(), time: z.number().int().nullable() });

export const sandboxRequested = z.object({
  type: z.literal('SandboxRequested'),
  version: z.literal(1),
  data: z.object({
    sandboxUuid: uuid,
    name: z.string(),
    /** What the caller asked for (`asOf`), as given. */
    asOf: sandboxAsOf,
    /** The last position of the company's log the clone copies (resolved when asked). */
    upToPosition: z.number().int(),
    /** How many of the company's events the clone copies. */
    total: z.number().int(),
  }),
});
export const sandboxCloneProgressed = z.object({ type: z.literal('SandboxCloneProgressed'), version: z.literal(1), data: z.object({ copied: z.number().int(), total: z.number().int() }) });
export const sandboxReady = z.object({
  type: z.literal('SandboxReady'),
  version: z.literal(1),
  /** `lastPosition`: the sandbox's own last copied event: later events of the sandbox are its own. */
  data: z.object({ copied: z.number().int(), total: z.number().int(), lastPosition: z.number().int() }),
});
export const sandboxCloneFailed = z.object({ type: z.literal('SandboxCloneFailed'), version: z.literal(1), data: z.object({ reason: z.string() }) });
export const sandboxReactorsChanged = z.object({ type: z.literal('SandboxReactorsChanged'), version: z.literal(1), data: z.object({ enabled: z.boolean() }) });
export const sandboxDeleted = z.object({ type: z.literal('SandboxDeleted'), version: z.literal(1), data: z.object({ sandboxUuid: uuid }) });

export const sandboxEventSchema = z.discriminatedUnion('type', [sandboxRequested, sandboxCloneProgressed, sandboxReady, sandboxCloneFailed, sandboxReactorsChanged, sandboxDeleted]);
export type SandboxEvent = z.infer<typeof sandboxEventSchema>;
export type SandboxAsOf = z.infer<typeof sandboxAsOf>;
export const sandboxEventTypes = sandboxEventSchema.options.map((o) => o.shape.type.value);

/** In the owning company's tenant. */
export const SANDBOX_STREAM_PREFIX = 'sandbox-';
export const sandboxStream = (sandboxUuid: string) => `${SANDBOX_STREAM_PREFIX}${sandboxUuid}`;
/** The uuid a sandbox stream is named by (the inverse of `sandboxStream`). */
export const sandboxUuidOfStream = (streamId: string) => streamId.slice(SANDBOX_STREAM_PREFIX.length);
