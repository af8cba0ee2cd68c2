import { z } from 'zod';
import { companyRoleSchema } from './roles.js';

export const memberAdded = z.object({
  type: z.literal('MemberAdded'),
  version: z.literal(1),
  data: z.object({ userUuid: z.string().uuid(), role: companyRoleSchema, scopes: z.array(z.string()) }),
});
export const memberChanged = z.object({
  type: z.literal('MemberChanged'),
  version: z.literal(1),
  data: z.object({ userUuid: z.string().uuid(), role: companyRoleSchema, scopes: z.array(z.string()) }),
});
export const memberRemoved = z.object({
  type: z.literal('MemberRemoved'),
  version: z.literal(1),
  data: z.object({ userUuid: z.string().uuid() }),
});

export const membershipEventSchema = z.discriminatedUnion('type', [memberAdded, memberChanged, memberRemoved]);
export type MembershipEvent = z.infer<typeof membershipEventSchema>;
export const membershipEventTypes = membershipEventSchema.options.map((o) => o.shape.type.value);

/** One stream per user per company, in the company's tenant. */
export const MEMBERSHIP_STREAM_PREFIX = 'membership-';
export const membershipStream = (userUuid: string) => `${MEMBERSHIP_STREAM_PREFIX}${userUuid}`;
/** The uuid a membership stream is named by (the inverse of `membershipStream`). */
export const membershipUuidOfStream = (streamId: string) => streamId.slice(MEMBERSHIP_STREAM_PREFIX.length);
