import type { FastifyInstance } from 'fastify';
import type { TestTenant } from '../support/actors.js';
import { aProperty, anObject, call, data, unique } from '../schema/schema-fixtures.js';

export { call, data, expectErrorBody, unique } from '../schema/schema-fixtures.js';

export interface TestObject {
  uuid: string;
  name: string;
}

/** An object with the given properties (name -> overrides of the property body). */
export async function anObjectWith(app: FastifyInstance, who: TestTenant, properties: Record<string, Record<string, unknown>>, name = unique('obj')): Promise<TestObject> {
  const object = await anObject(app, who, { name });
  for (const [prop, overrides] of Object.entries(properties)) await aProperty(app, who, object.uuid, { name: prop, label: prop, ...overrides });
  return { uuid: object.uuid, name: object.name };
}

/** Creates a record and returns its data (fails the test unless 201). */
export async function aRecord(app: FastifyInstance, who: TestTenant, objectName: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return data(app, who, 'POST', `/api/v2/${objectName}`, { properties, ...extra });
}

export async function index(app: FastifyInstance, who: TestTenant, objectName: string, body: Record<string, unknown> = {}) {
  return call(app, who, 'POST', `/api/v2/${objectName}/index`, body);
}
