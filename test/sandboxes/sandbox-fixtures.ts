import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { TestTenant } from '../support/actors.js';
import { data } from '../schema/schema-fixtures.js';

/** `who` working in sandbox `sandboxUuid` (the header on every call). */
export const inSandbox = (who: TestTenant, sandboxUuid: string): TestTenant => ({ ...who, headers: { ...who.headers, 'x-platform-sandbox-uuid': sandboxUuid } as TestTenant['headers'] });

/** Asks for a sandbox of `who`'s company and waits until its clone is done; returns the ready sandbox. */
export async function aReadySandbox(app: FastifyInstance, who: TestTenant, body: Record<string, unknown> = {}) {
  const asked = await app.inject({ method: 'POST', url: '/api/v2/developer-sandboxes', headers: who.headers, payload: { name: 'dev', ...body } });
  expect(asked.statusCode, asked.body).toBe(202);
  const sandbox = asked.json().data as { uuid: string; status: string };
  await app.sandboxes.settled();
  const ready = await data(app, who, 'GET', `/api/v2/developer-sandboxes/${sandbox.uuid}`);
  expect(ready).toMatchObject({ status: 'ready', percentage: 100 });
  return ready as { uuid: string; status: string; percentage: number; copiedEvents: number; upToPosition: number };
}
