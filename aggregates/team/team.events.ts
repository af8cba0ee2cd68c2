import { z } from 'zod';

const uuid = z.string().uuid();

export const teamCreated = z.object({
  type: z.literal('TeamCreated'),
  version: z.literal(1),
  data: z.object({ teamUuid: uuid, name: z.string(), description: z.string(), scopes: z.array(z.string()) }),
});
export const teamUpdated = z.object({
  type: z.literal('TeamUpdated'),
  version: z.literal(1),
  data: z.object({ name: z.string().optional(), description: z.string().optional(), scopes: z.array(z.string()).optional() }),
});
export const teamDeleted = z.object({ type: z.literal('TeamDeleted'), version: z.literal(1), data: z.object({ teamUuid: uuid }) });
export const teamMemberAdded = z.object({ type: z.literal('TeamMemberAdded'), version: z.literal(1), data: z.object({ userUuid: uuid }) });
export const teamMemberRemoved = z.object({ type: z.literal('TeamMemberRemoved'), version: z.literal(1), data: z.object({ userUuid: uuid }) });
export const teamRecordAssigned = z.object({ type: z.literal('TeamRecordAssigned'), version: z.literal(1), data: z.object({ recordUuid: uuid }) });
export const teamRecordUnassigned = z.object({ type: z.literal('TeamRecordUnassigned'), version: z.literal(1), data: z.object({ recordUuid: uuid }) });

export const teamEventSchema = z.discriminatedUnion('type', [
  teamCreated,
  teamUpdated,
  teamDeleted,
  teamMemberAdded,
  teamMemberRemoved,
  teamRecordAssigned,
  teamRecordUnassigned,
]);
export type TeamEvent = z.infer<typeof teamEventSchema>;
export const teamEventTypes = teamEventSchema.options.map((o) => o.shape.type.value);

export const TEAM_STREAM_PREFIX = 'team-';
export const teamStream = (teamUuid: string) => `${TEAM_STREAM_PREFIX}${teamUuid}`;
/** The uuid a team stream is named by (the inverse of `teamStream`). */
export const teamUuidOfStream = (streamId: string) => streamId.slice(TEAM_STREAM_PREFIX.length);
