import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';
import { anObjectForHooks, recordRoutes } from '../support/record-routes.js';

let t: TestApp;
let owner: TestTenant;
let rx: Receiver;
const SECRET = `whsec_${Buffer.from('a test secret of some length!').toString('base64')}`;

beforeAll(async () => {
  t = await startTestApp({
    PASSWORD_SCRYPT_LOG_N: '10',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_TIMEOUT_MS: '1500',
    WEBHOOK_RATE_LIMIT_MAX: '1000',
    WEBHOOK_REPLAY_MAX: '2',
  });
  owner = await signUpWithCompany(t.app);
  rx = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

let n = 0;
/** A webhook on its own receiver path, so tests do not see each other's deliveries. */
async function hook(body: Record<string, unknown>, who: TestTenant = owner) {
  const path = `/h${++n}`;
  const res = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: who.headers, payload: { url: `${rx.url}${path}`, secret: SECRET, ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return { uuid: res.json().data.uuid as string, path };
}

async function deliveries(webhookUuid: string, who: TestTenant = owner) {
  const res = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/${webhookUuid}/deliveries/index`, headers: who.headers, payload: { limit: 100 } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { uuid: string; status: string; attempts: number; lastResponseCode: number | null; lastError: string | null; messageId: string; nextAttemptAt: number | null; lastLatencyMs: number | null }[];
}

/** A real object with the properties the tests write (see record-routes.ts). */
const objectName = (who: TestTenant = owner) => anObjectForHooks(t.app, who);
/** Record writes through the record routes. */
const recordsOf = (obj: string, who: TestTenant = owner) => recordRoutes(t.app, t.platform.store, who, obj);

describe('delivery', () => {
  it('a receiver failing K times then answering 2xx gets K+1 attempts, one webhook-id, spaced by the backoff; every signature verifies', async () => {
    const obj = await objectName();
    const { uuid, path } = await hook({ topic: `record.${obj}.created`, retryBackoffMs: 150, maxRetries: 4 });
    const K = 2;
    rx.answer((i, req) => (req.path === path && i < K ? { status: 503, body: 'not yet' } : { status: 200 }));
    const records = recordsOf(obj);
    const { recordUuid } = await records.create({ email: 'a@example.com' });

    const got = await waitFor(() => (rx.on(path).length >= K + 1 ? rx.on(path) : null), 10_000, 'K+1 attempts');
    await waitFor(async () => (await deliveries(uuid))[0]?.status === 'succeeded', 5_000, 'succeeded');
    await new Promise((r) => setTimeout(r, 400));
    expect(rx.on(path)).toHaveLength(K + 1);
    const ids = new Set(got.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(150);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(300);

    const verifier = new Webhook(SECRET);
    for (const r of got) {
      const headers = { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) };
      expect(verifier.verify(r.body, headers)).toMatchObject({ type: `record.${obj}.created` });
      const tampered = r.body.replace('a@example.com', 'b@example.com');
      expect(tampered).not.toBe(r.body);
      expect(() => verifier.verify(tampered, headers)).toThrow();
      const oneByte = r.body.slice(0, -2) + (r.body.at(-2) === '}' ? ']' : '}') + r.body.at(-1);
      expect(() => verifier.verify(oneByte, headers)).toThrow();
    }
    const body = JSON.parse(got[0]!.body);
    expect(body).toMatchObject({
      id: [...ids][0],
      type: `record.${obj}.created`,
      company: owner.companyUuid,
      webhook: { uuid, topic: `record.${obj}.created` },
      data: { action: 'created', objectName: obj, record: { uuid: recordUuid, objectName: obj, properties: { email: 'a@example.com' }, deletedAt: null }, changes: {}, relations: [] },
    });
    expect(body.data.event).toMatchObject({ type: 'RecordCreated', streamId: `record-${recordUuid}`, revision: 0 });
    expect(got[0]!.body).toBe(got[2]!.body);

    const [d] = await deliveries(uuid);
    expect(d).toMatchObject({ status: 'succeeded', attempts: K + 1, lastResponseCode: 200, lastError: null, nextAttemptAt: null, messageId: [...ids][0] });
    expect(d!.lastLatencyMs).toBeGreaterThanOrEqual(0);
    const detail = await t.app.inject({ method: 'GET', url: `/api/v2/webhooks/${uuid}/deliveries/${d!.uuid}`, headers: owner.headers });
    expect(detail.json().data.attemptLog.map((a: { responseCode: number }) => a.responseCode)).toEqual([503, 503, 200]);
    expect(detail.body).not.toContain('not yet');
  });

  it('past maxRetries the delivery is parked as failed, and the receiver body is never echoed', async () => {
    const obj = await objectName();
    const { uuid, path } = await hook({ topic: `record.${obj}.all`, retryBackoffMs: 20, maxRetries: 2 });
    rx.answer((_, req) => (req.path === path ? { status: 500, body: 'RECEIVER-INTERNALS-xyz' } : { status: 200 }));
    await recordsOf(obj).create({ a: 1 });
    await waitFor(async () => (await deliveries(uuid))[0]?.status === 'failed', 10_000, 'parked');
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.on(path)).toHaveLength(3);
    const list = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/${uuid}/deliveries/index`, headers: owner.headers, payload: {} });
    expect(list.json().data[0]).toMatchObject({ status: 'failed', attempts: 3, lastResponseCode: 500, lastError: 'HTTP 500', nextAttemptAt: null });
    expect(list.body).not.toContain('RECEIVER-INTERNALS');
    const detail = await t.app.inject({ method: 'GET', url: `/api/v2/webhooks/${uuid}/deliveries/${list.json().data[0].uuid}`, headers: owner.headers });
    expect(detail.body).not.toContain('RECEIVER-INTERNALS');
  });

  it('retryEnabled false: one attempt, then parked', async () => {
    const obj = await objectName();
    const { uuid, path } = await hook({ topic: `record.${obj}.created`, retryEnabled: false, maxRetries: 5, retryBackoffMs: 20 });
    rx.answer((_, req) => (req.path === path ? { status: 400 } : { status: 200 }));
    await recordsOf(obj).create({ a: 1 });
    await waitFor(async () => (await deliveries(uuid))[0]?.status === 'failed', 5_000, 'parked');
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.on(path)).toHaveLength(1);
  });

  it('a redirect is a failure and is not followed; a timeout is a failure', async () => {
    const obj = await objectName();
    const redirect = await hook({ topic: `record.${obj}.created`, retryEnabled: false });
    const slow = await hook({ topic: `record.${obj}.created`, retryEnabled: false });
    const target = `/elsewhere${n}`;
    rx.answer((_, req) =>
      req.path === redirect.path ? { status: 302, headers: { location: `${rx.url}${target}` } } : req.path === slow.path ? 'hang' : { status: 200 },
    );
    await recordsOf(obj).create({ a: 1 });
    const [r] = await waitFor(async () => ((await deliveries(redirect.uuid))[0]?.status === 'failed' ? deliveries(redirect.uuid) : null), 5_000, 'redirect parked');
    expect(r).toMatchObject({ lastResponseCode: 302, lastError: 'redirect 302 not followed' });
    const [s] = await waitFor(async () => ((await deliveries(slow.uuid))[0]?.status === 'failed' ? deliveries(slow.uuid) : null), 5_000, 'timeout parked');
    expect(s).toMatchObject({ lastResponseCode: null, lastError: 'timeout after 1500 ms' });
    expect(s!.lastLatencyMs).toBeGreaterThanOrEqual(1450);
    expect(rx.on(target)).toHaveLength(0);
  });

  it('delivers in order per record even when an earlier delivery is retried', async () => {
    const obj = await objectName();
    const { uuid, path } = await hook({ topic: `record.${obj}.all`, retryBackoffMs: 100, maxRetries: 3 });
    let failedFirst = 0;
    rx.answer((_, req) => {
      if (req.path !== path) return { status: 200 };
      const body = JSON.parse(req.body);
      if (body.data.event.revision === 0 && failedFirst < 2) {
        failedFirst++;
        return { status: 500 };
      }
      return { status: 200 };
    });
    const records = recordsOf(obj);
    const { recordUuid } = await records.create({ n: 0 });
    for (let i = 1; i <= 3; i++) await records.update(recordUuid, { n: { before: i - 1, after: i } });
    await waitFor(async () => (await deliveries(uuid)).filter((d) => d.status === 'succeeded').length === 4, 10_000, 'four delivered');
    const succeeded = rx.on(path).map((r) => JSON.parse(r.body).data.event.revision);
    expect(succeeded).toEqual([0, 0, 0, 1, 2, 3]);
    const last = JSON.parse(rx.on(path).at(-1)!.body);
    expect(last.data).toMatchObject({ action: 'updated', record: { properties: { n: 3 } }, changes: { n: { before: 2, after: 3 } } });
  });

  it('topics: updated does not hear created; property_changed hears only changes of its property; archive, delete and restore', async () => {
    const obj = await objectName();
    const updated = await hook({ topic: `record.${obj}.updated` });
    const email = await hook({ topic: `record.${obj}.property_changed.email` });
    const archived = await hook({ topic: `record.${obj}.archived` });
    const deleted = await hook({ topic: `record.${obj}.deleted` });
    const restored = await hook({ topic: `record.${obj}.restored` });
    const other = await hook({ topic: 'record.someotherobject.all' });
    const anyChange = await hook({ topic: 'PropertyValueChanged' });
    rx.answer(() => ({ status: 200 }));
    const records = recordsOf(obj);
    const { recordUuid } = await records.create({ email: 'x@example.com', name: 'X' });
    await records.update(recordUuid, { name: { before: 'X', after: 'Y' } });
    await records.update(recordUuid, { email: { before: 'x@example.com', after: 'y@example.com' } });
    // Setting the same value again changes nothing: no event, no delivery.
    await records.update(recordUuid, { email: { before: 'y@example.com', after: 'y@example.com' } });
    await records.archive(recordUuid);
    await records.restore(recordUuid);
    await records.archive(recordUuid, 'delete');
    await waitFor(() => rx.on(deleted.path).length === 1 && rx.on(updated.path).length === 2, 5_000, 'deliveries');
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.on(updated.path)).toHaveLength(2);
    expect(rx.on(email.path).map((r) => JSON.parse(r.body).data.changes.email)).toEqual([{ before: 'x@example.com', after: 'y@example.com' }]);
    expect(rx.on(archived.path).map((r) => JSON.parse(r.body).type)).toEqual([`record.${obj}.archived`]);
    expect(rx.on(deleted.path).map((r) => JSON.parse(r.body).data.record.deletedAt)).toEqual([expect.any(Number)]);
    expect(rx.on(restored.path)).toHaveLength(1);
    expect(rx.on(other.path)).toHaveLength(0);
    // Only the two updates that changed a value.
    expect(rx.on(anyChange.path)).toHaveLength(2);
  });

  it('LEGACY payload: properties as a {name, type, value} list', async () => {
    const obj = await objectName();
    const { path } = await hook({ topic: `record.${obj}.updated`, webhookFormat: 'LEGACY' });
    rx.answer(() => ({ status: 200 }));
    const records = recordsOf(obj);
    const { recordUuid } = await records.create({ email: 'l@example.com', score: 3 });
    await records.update(recordUuid, { score: { before: 3, after: 4 } });
    const [r] = await waitFor(() => (rx.on(path).length === 1 ? rx.on(path) : null), 5_000, 'legacy delivery');
    expect(JSON.parse(r!.body)).toMatchObject({
      topic: `record.${obj}.updated`,
      event: 'updated',
      objectName: obj,
      uuid: recordUuid,
      companyUuid: owner.companyUuid,
      record: { uuid: recordUuid, properties: [{ name: 'email', type: 'string', value: 'l@example.com' }, { name: 'score', type: 'number', value: 4 }] },
      changes: [{ name: 'score', before: 3, after: 4 }],
    });
  });

  it('a secret without the whsec_ prefix signs with its UTF-8 bytes', async () => {
    const obj = await objectName();
    const path = `/raw${n}`;
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: owner.headers, payload: { url: `${rx.url}${path}`, secret: 'plain text secret ü', topic: `record.${obj}.created` } });
    expect(res.statusCode).toBe(201);
    rx.answer(() => ({ status: 200 }));
    await recordsOf(obj).create({ a: 1 });
    const [r] = await waitFor(() => (rx.on(path).length === 1 ? rx.on(path) : null), 5_000, 'delivery');
    const headers = { 'webhook-id': String(r!.headers['webhook-id']), 'webhook-timestamp': String(r!.headers['webhook-timestamp']), 'webhook-signature': String(r!.headers['webhook-signature']) };
    expect(new Webhook(Buffer.from('plain text secret ü', 'utf8'), { format: 'raw' }).verify(r!.body, headers)).toBeTruthy();
    expect(() => new Webhook(Buffer.from('plain text secret u', 'utf8'), { format: 'raw' }).verify(r!.body, headers)).toThrow();
  });

  it("another company's events never reach a webhook", async () => {
    const obj = await objectName();
    const other = await signUpWithCompany(t.app);
    await anObjectForHooks(t.app, other, obj);
    const { path } = await hook({ topic: `record.${obj}.created` });
    rx.answer(() => ({ status: 200 }));
    await recordsOf(obj, other).create({ a: 'theirs' });
    await recordsOf(obj).create({ a: 'ours' });
    await waitFor(() => rx.on(path).length === 1, 5_000, 'our delivery');
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.on(path).map((r) => JSON.parse(r.body).data.record.properties.a)).toEqual(['ours']);
  });
});

describe('delivery log, redelivery and replay', () => {
  it('backfills a new webhook with events from before it existed, in pages of WEBHOOK_REPLAY_MAX', async () => {
    const obj = await objectName();
    // A webhook that already exists sees them live: once it has all three, the log is readable up to them.
    const sentinel = await hook({ topic: `record.${obj}.created` });
    const records = recordsOf(obj);
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await records.create({ i })).recordUuid);
    rx.answer(() => ({ status: 200 }));
    await waitFor(() => rx.on(sentinel.path).length === 3, 5_000, 'sentinel deliveries');
    const { uuid, path } = await hook({ topic: `record.${obj}.created` });
    rx.answer(() => ({ status: 200 }));
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.on(path)).toHaveLength(0);

    const first = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/${uuid}/replay`, headers: owner.headers, payload: {} });
    expect(first.statusCode).toBe(202);
    expect(first.json().data).toMatchObject({ enqueued: 2, truncated: true, continueAfter: expect.any(String) });
    const second = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/${uuid}/replay`, headers: owner.headers, payload: { afterCheckpoint: first.json().data.continueAfter } });
    expect(second.json().data).toMatchObject({ enqueued: 1, truncated: false, continueAfter: null });
    await waitFor(() => rx.on(path).length === 3, 5_000, 'backfill');
    // Different records: sent side by side, in no particular order.
    expect(rx.on(path).map((r) => JSON.parse(r.body).data.record.uuid).sort()).toEqual([...made].sort());
    expect(new Set(rx.on(path).map((r) => r.headers['webhook-id'])).size).toBe(3);
    const log = await deliveries(uuid);
    expect(log.map((d) => (d as unknown as { source: string }).source)).toEqual(['replay', 'replay', 'replay']);
  });

  it('replays a time range or a range of log positions', async () => {
    const obj = await objectName();
    const { uuid, path } = await hook({ topic: `record.${obj}.all` });
    rx.answer(() => ({ status: 200 }));
    const records = recordsOf(obj);
    await records.create({ k: 'a' });
    await new Promise((r) => setTimeout(r, 30));
    const b = await records.create({ k: 'b' });
    await new Promise((r) => setTimeout(r, 30));
    await records.create({ k: 'c' });
    await waitFor(() => rx.on(path).length === 3, 5_000, 'live deliveries');

    const byTime = await t.app.inject({
      method: 'POST',
      url: `/api/v2/webhooks/${uuid}/replay`,
      headers: owner.headers,
      payload: { from: b.event.metadata.occurredAt, to: b.event.metadata.occurredAt },
    });
    expect(byTime.json().data).toMatchObject({ enqueued: 1 });
    await waitFor(() => rx.on(path).length === 4, 5_000, 'time-range replay');
    expect(JSON.parse(rx.on(path)[3]!.body).data.record.properties).toEqual({ k: 'b' });

    const byPosition = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/${uuid}/replay`, headers: owner.headers, payload: { fromPosition: b.event.position } });
    expect(byPosition.json().data).toMatchObject({ enqueued: 2 });
    await waitFor(() => rx.on(path).length === 6, 5_000, 'position replay');
    expect(rx.on(path).slice(4).map((r) => JSON.parse(r.body).data.record.properties.k).sort()).toEqual(['b', 'c']);

    const bad = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/${uuid}/replay`, headers: owner.headers, payload: { afterCheckpoint: 'nonsense' } });
    expect(bad.statusCode).toBe(400);
  });

  it('redelivers a message with the same webhook-id and body; another company gets 404 on the log', async () => {
    const obj = await objectName();
    const { uuid, path } = await hook({ topic: `record.${obj}.created` });
    rx.answer(() => ({ status: 200 }));
    await recordsOf(obj).create({ r: 1 });
    await waitFor(() => rx.on(path).length === 1, 5_000, 'first delivery');
    const [original] = await waitFor(async () => ((await deliveries(uuid))[0]?.status === 'succeeded' ? deliveries(uuid) : null), 5_000, 'succeeded');
    const res = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/${uuid}/deliveries/${original!.uuid}/redeliver`, headers: owner.headers });
    expect(res.statusCode).toBe(202);
    expect(res.json().data).toMatchObject({ source: 'redelivery', redeliveryOf: original!.uuid, messageId: original!.messageId, status: 'pending', attempts: 0 });
    await waitFor(() => rx.on(path).length === 2, 5_000, 'redelivery');
    expect(rx.on(path)[1]!.headers['webhook-id']).toBe(rx.on(path)[0]!.headers['webhook-id']);
    expect(rx.on(path)[1]!.body).toBe(rx.on(path)[0]!.body);

    const other = await signUpWithCompany(t.app);
    for (const [method, url] of [
      ['POST', `/api/v2/webhooks/${uuid}/deliveries/index`],
      ['GET', `/api/v2/webhooks/${uuid}/deliveries/${original!.uuid}`],
      ['POST', `/api/v2/webhooks/${uuid}/deliveries/${original!.uuid}/redeliver`],
      ['POST', `/api/v2/webhooks/${uuid}/replay`],
    ] as const) {
      const r = await t.app.inject({ method, url, headers: other.headers, payload: method === 'POST' ? {} : undefined });
      expect(r.statusCode, url).toBe(404);
    }
    const filtered = await t.app.inject({
      method: 'POST',
      url: `/api/v2/webhooks/${uuid}/deliveries/index`,
      headers: owner.headers,
      payload: { filters: [{ key: 'status', operator: 'equals', value: 'failed' }] },
    });
    expect(filtered.json().total).toBe(0);
  });
});

