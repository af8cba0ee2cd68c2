import { z } from 'zod';

export const userRegistered = z.object({
  type: z.literal('UserRegistered'),
  version: z.literal(1),
  data: z.object({ userUuid: z.string().uuid(), email: z.string(), firstname: z.string(), lastname: z.string() }),
});
export const userEmailVerified = z.object({
  type: z.literal('UserEmailVerified'),
  version: z.literal(1),
  data: z.object({ email: z.string() }),
});
/** The hash itself is kept out of the log (user_credentials table); the event records the fact. */
export const userPasswordChanged = z.object({
  type: z.literal('UserPasswordChanged'),
  version: z.literal(1),
  data: z.object({ reason: z.enum(['reset', 'change']) }),
});
export const userCompanySelected = z.object({
  type: z.literal('UserCompanySelected'),
  version: z.literal(1),
  data: z.object({ companyUuid: z.string().uuid() }),
});

export const userEventSchema = z.discriminatedUnion('type', [userRegistered, userEmailVerified, userPasswordChanged, userCompanySelected]);
export type UserEvent = z.infer<typeof userEventSchema>;
export const userEventTypes = userEventSchema.options.map((o) => o.shape.type.value);

export const USER_STREAM_PREFIX = 'user-';
export const userStream = (userUuid: string) => `${USER_STREAM_PREFIX}${userUuid}`;
/** The uuid a user stream is named by (the inverse of `userStream`). */
export const userUuidOfStream = (streamId: string) => streamId.slice(USER_STREAM_PREFIX.length);
/** Users are not inside one company: their streams live in the platform tenant. */
export const PLATFORM_TENANT = 'platform';
