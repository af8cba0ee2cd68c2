import { z } from 'zod';
import { companyRoleSchema, roles } from '../../aggregates/membership/roles.js';
import { auditUserSchema, userIdentityFields } from '../http/audit-fields.js';

export const passwordSchema = z.string().min(8, 'at least 8 characters').max(200);
export const emailSchema = z.email().max(254);

export const registerBodySchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  firstname: z.string().trim().min(1).max(100),
  lastname: z.string().trim().min(1).max(100),
});
export const loginBodySchema = z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(200) });
export const forgotBodySchema = z.object({ email: z.string().min(1).max(254) });
export const resetBodySchema = z.object({ token: z.string().min(20).max(200), password: passwordSchema });
export const verifyBodySchema = z.object({ token: z.string().min(20).max(200) });

export const userCompanySchema = z.object({ uuid: z.string(), name: z.string(), subdomain: z.string(), role: companyRoleSchema, scopes: z.array(z.string()) });

/** The record-like object (spec 2.3) of the caller's profile record (User trait). */
export const profileRecordSchema = z
  .object({
    uuid: z.string(),
    name: z.string().nullable(),
    label: z.string().nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    deletedAt: z.number().int().nullable(),
    createdByUuid: z.string().nullable(),
    updatedByUuid: z.string().nullable(),
    deletedByUuid: z.string().nullable(),
    index: z.number().int().describe("The record's revision"),
    deleted: z.boolean().describe('true while the record is archived (the link is kept)'),
    complete: z.boolean(),
    properties: z.array(z.object({ icon: z.string(), name: z.string(), value: z.unknown(), type: z.string(), label: z.string() })),
    objects: z.record(z.string(), z.unknown()).describe("The record's objects, name to uuid (the primary first)"),
    user: auditUserSchema,
  })
  .meta({ id: 'ProfileRecord' });
export type ProfileRecord = z.infer<typeof profileRecordSchema>;

/** The user object of spec 2.4, with the caller's companies and the selected one. */
export const userObjectSchema = z
  .object({
    ...userIdentityFields,
    scopes: z.array(z.string()).describe('Scopes held in the selected company (membership and teams)'),
    filters: z.record(z.string(), z.unknown()),
    role: z.enum(roles).nullable().describe('Role in the selected company; SUPER_ADMIN overrides'),
    record: profileRecordSchema.nullable().describe("The caller's profile in the selected company: the record of the object with the User trait linked to them (docs/records.md, \"User trait\"), else null"),
    emailVerified: z.boolean(),
    companies: z.array(userCompanySchema),
    selectedCompany: z.string().nullable(),
  })
  .meta({ id: 'User' });
export type UserObject = z.infer<typeof userObjectSchema>;

export const sessionSchema = z.object({ token: z.string(), expiresAt: z.number().int(), user: userObjectSchema }).meta({ id: 'Session' });
