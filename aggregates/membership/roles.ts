import { z } from 'zod';

/** Roles a member holds in one company. */
export const companyRoles = ['USER', 'ADMIN', 'RESELLER', 'DEVELOPER'] as const;
export const companyRoleSchema = z.enum(companyRoles);
export type CompanyRole = z.infer<typeof companyRoleSchema>;

/** Every role of the spec (2.4): SUPER_ADMIN is platform-wide, never a membership. */
export const roles = [...companyRoles, 'SUPER_ADMIN'] as const;
export type Role = (typeof roles)[number];

/** A scope name: lowercase words joined by ':' (e.g. `teams:write`). */
export const scopeNameSchema = z.string().regex(/^[a-z][a-z0-9-]*(:[a-z][a-z0-9-]*)+$/, 'a scope is lowercase words joined by ":"').max(100);
