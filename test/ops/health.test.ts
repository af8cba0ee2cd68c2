import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../src/http/error-body.js';
import { startDraining } from '../../src/ops/draining.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// Item 9 of issue 20: a public liveness and readiness route.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('GET /api/v2/health', () => {
  it('answers 200 without a token when the database answers and the reactors run', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'OK', data: { status: 'ready', database: 'up', reactors: 'running' } });
  });

  it('answers 503 with the error body once the server is shutting down', async () => {
    startDraining();
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/health', headers: { 'x-request-id': 'health-1' } });
    expect(res.statusCode).toBe(503);
    const body = errorBodySchema.parse(res.json());
    expect(body).toMatchObject({ status: 503, requestId: 'health-1' });
    expect(body.errors.map((e) => e.message)).toEqual(['The server is shutting down']);
    expect(body.errors[0]!.type).toBe('PLATFORM_ERROR');
    expect(res.headers['retry-after']).toBe('1');
  });
});
