import { z } from 'zod';
import { companyRoleSchema, roles } from '../../aggregates/membership/roles.js';

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

/** The user object of spec 2.4, with the caller's companies and the selected one. */
export const userObjectSchema = z
  .object({
    uuid: z.string(),
    email: z.string(),
    firstname: z.string(),
    lastname: z.string(),
    initials: z.string(),
    scopes: z.array(z.string()).describe('Scopes held in the selected company (membership and teams)'),
    filters: z.record(z.string(), z.unknown()),
    role: z.enum(roles).nullable().describe('Role in the selected company; SUPER_ADMIN overrides'),
    record: z.null().describe('The user record arrives with the User trait'),
    emailVerified: z.boolean(),
    companies: z.array(userCompanySchema),
    selectedCompany: z.string().nullable(),
  })
  .meta({ id: 'User' });
export type UserObject = z.infer<typeof userObjectSchema>;

export const sessionSchema = z.object({ token: z.string(), expiresAt: z.number().int(), user: userObjectSchema }).meta({ id: 'Session' });
