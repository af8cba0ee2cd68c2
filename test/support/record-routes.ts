import type { FastifyInstance } from 'fastify';
import type { TestTenant } from './actors.js';
import type { EventStore } from '../../src/event-store/port.js';

/** Properties every object made by `anObjectForHooks` has: enough for the webhook and sync tests. */
const hookProperties: Record<string, { type: string; format: string }> = {
  email: { type: 'string', format: 'email' },
  name: { type: 'string', format: 'text' },
  k: { type: 'string', format: 'text' },
  a: { type: 'json', format: 'json' },
  n: { type: 'number', format: 'number' },
  i: { type: 'number', format: 'number' },
  r: { type: 'number', format: 'number' },
  score: { type: 'number', format: 'number' },
  total: { type: 'number', format: 'number' },
};

async function ok(app: FastifyInstance, who: TestTenant, method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  const res = await app.inject({ method, url, headers: who.headers, payload: payload as Record<string, unknown> | undefined });
  if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** A new object of the company with the properties above; returns its name. */
export async function anObjectForHooks(app: FastifyInstance, who: TestTenant, name = `hook_${Math.random().toString(36).slice(2, 10)}`): Promise<string> {
  const object = await ok(app, who, 'POST', '/api/v2/objects', { name, label: name });
  for (const [prop, def] of Object.entries(hookProperties)) await ok(app, who, 'POST', `/api/v2/objects/${object.uuid}/properties`, { name: prop, label: prop, ...def });
  return name;
}

/**
 * Writes records through the record routes (as a client would), and reads back the event each
 * write appended.
 */
export function recordRoutes(app: FastifyInstance, store: EventStore, who: TestTenant, objectName: string) {
  const lastEvent = async (recordUuid: string) => (await store.readStream(who.companyUuid, `record-${recordUuid}`, { direction: 'backwards', maxCount: 1 }))[0]!;
  return {
    async create(properties: Record<string, unknown>) {
      const record = await ok(app, who, 'POST', `/api/v2/${objectName}`, { properties });
      return { recordUuid: record.uuid as string, event: await lastEvent(record.uuid) };
    },
    async update(recordUuid: string, changes: Record<string, { before?: unknown; after: unknown }>) {
      await ok(app, who, 'PUT', `/api/v2/${objectName}/${recordUuid}`, { properties: Object.fromEntries(Object.entries(changes).map(([k, c]) => [k, c.after])) });
      return lastEvent(recordUuid);
    },
    async archive(recordUuid: string, mode = 'archive') {
      await ok(app, who, 'DELETE', `/api/v2/${objectName}/${recordUuid}?mode=${mode}`);
      return lastEvent(recordUuid);
    },
    async restore(recordUuid: string) {
      await ok(app, who, 'POST', `/api/v2/${objectName}/${recordUuid}/restore`);
      return lastEvent(recordUuid);
    },
  };
}
