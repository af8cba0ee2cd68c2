import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { CompanyRole } from '../../aggregates/membership/roles.js';
import type { Scope } from '../../src/auth/scopes.js';

/** A signed-in user, ready for `app.inject({ headers: actor.headers, ... })`. */
export interface TestUser {
  token: string;
  userUuid: string;
  email: string;
  password: string;
  headers: { authorization: string };
}

/** A signed-in user acting for `companyUuid` (selected in its session). */
export interface TestTenant extends TestUser {
  companyUuid: string;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const suffix = () => randomBytes(5).toString('hex');

async function call(app: FastifyInstance, method: 'POST' | 'PUT' | 'GET', url: string, headers: Record<string, string>, payload?: unknown) {
  const res = await app.inject({ method, url, headers, payload: payload as Record<string, unknown> | undefined });
  if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** Registers a new user (unique e-mail) and returns its session. */
export async function signUp(app: FastifyInstance, opts: { email?: string; password?: string; firstname?: string; lastname?: string } = {}): Promise<TestUser> {
  const email = opts.email ?? `user-${suffix()}@example.test`;
  const password = opts.password ?? 'correct horse battery staple';
  const data = await call(app, 'POST', '/api/v2/auth/register', {}, { email, password, firstname: opts.firstname ?? 'Test', lastname: opts.lastname ?? 'User' });
  return { token: data.token, userUuid: data.user.uuid, email, password, headers: bearer(data.token) };
}

/** Registers a user, creates a company it is ADMIN of, and selects it: one call per tenant. */
export async function signUpWithCompany(
  app: FastifyInstance,
  opts: { email?: string; password?: string; companyName?: string; subdomain?: string } = {},
): Promise<TestTenant> {
  const user = await signUp(app, opts);
  const company = await call(app, 'POST', '/api/v2/companies', user.headers, { name: opts.companyName ?? `Company ${suffix()}`, subdomain: opts.subdomain ?? `co-${suffix()}` });
  await call(app, 'POST', `/api/v2/auth/companies/${company.uuid}/select`, user.headers);
  return { ...user, companyUuid: company.uuid };
}

/** A new user added to `admin`'s company with `role` and `scopes`, with that company selected. */
export async function joinCompany(app: FastifyInstance, admin: TestTenant, opts: { role?: CompanyRole; scopes?: Scope[]; email?: string } = {}): Promise<TestTenant> {
  const user = await signUp(app, { email: opts.email });
  await call(app, 'POST', `/api/v2/companies/${admin.companyUuid}/users`, admin.headers, { userUuid: user.userUuid, role: opts.role ?? 'USER', scopes: opts.scopes ?? [] });
  await call(app, 'POST', `/api/v2/auth/companies/${admin.companyUuid}/select`, user.headers);
  return { ...user, companyUuid: admin.companyUuid };
}

/** Two unrelated tenants, each with its ADMIN: for "another company's resource answers 404" tests. */
export async function twoTenants(app: FastifyInstance): Promise<[TestTenant, TestTenant]> {
  return [await signUpWithCompany(app), await signUpWithCompany(app)];
}
