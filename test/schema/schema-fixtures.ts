import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { TestUser } from '../support/actors.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** Calls the API as `who` (or anonymously) and returns status and parsed body. */
export async function call(app: FastifyInstance, who: Pick<TestUser, 'headers'> | null, method: Method, url: string, payload?: unknown) {
  const res = await app.inject({ method, url, headers: who?.headers ?? {}, payload: payload as Record<string, unknown> | undefined });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

/** Like `call`, but fails the test unless the answer is 2xx; returns `data`. */
export async function data(app: FastifyInstance, who: Pick<TestUser, 'headers'>, method: Method, url: string, payload?: unknown) {
  const res = await call(app, who, method, url, payload);
  if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export const unique = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;

export async function anObject(app: FastifyInstance, who: Pick<TestUser, 'headers'>, overrides: Record<string, unknown> = {}) {
  const name = (overrides.name as string | undefined) ?? unique('thing');
  return data(app, who, 'POST', '/api/v2/objects', { name, label: name, ...overrides });
}

export async function aProperty(app: FastifyInstance, who: Pick<TestUser, 'headers'>, objectUuid: string, overrides: Record<string, unknown> = {}) {
  return data(app, who, 'POST', `/api/v2/objects/${objectUuid}/properties`, { name: unique('p'), label: 'A property', type: 'string', format: 'text', ...overrides });
}

export async function aRelation(app: FastifyInstance, who: Pick<TestUser, 'headers'>, fromObjectUuid: string, toObjectUuid: string, overrides: Record<string, unknown> = {}) {
  return data(app, who, 'POST', `/api/v2/relations/${fromObjectUuid}`, { name: unique('rel'), toObjectUuid, cardinality: 'MANY_TO_MANY', ...overrides });
}

/** The spec's error body (part 7) with `status`, and every error carrying a type and a correction suggestion. */
export function expectErrorBody(res: { status: number; body: Record<string, any> }, status: number, type?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.message).toBe('string');
  expect(typeof res.body.requestId).toBe('string');
  expect(Array.isArray(res.body.roles)).toBe(true);
  expect(Array.isArray(res.body.scopes)).toBe(true);
  expect(res.body.errors.length).toBeGreaterThan(0);
  for (const e of res.body.errors) {
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.correctionSuggestion.length).toBeGreaterThan(0);
  }
  if (type) expect(res.body.errors.map((e: { type: string }) => e.type)).toContain(type);
}
