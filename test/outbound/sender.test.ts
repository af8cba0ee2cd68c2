import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { makeUrlGuard, readAnswer, SendFailed, sendPinned, signatureHeaders } from '../../src/outbound/index.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
});

// pinned.test is unknown to the system resolver: only the guard's own lookup knows it.
const guard = makeUrlGuard({ allowedHosts: ['127.0.0.1'], lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
const get = { method: 'GET' as const, headers: {} };
const status = async (path: string, timeoutMs = 2_000, signal?: AbortSignal) =>
  sendPinned(await guard.resolve(`http://pinned.test:${rx.port}${path}`), get, { timeoutMs, signal }, async (a) => a.statusCode);
const failure = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => (err instanceof SendFailed ? { why: err.why, message: err.message } : err));

describe('the outbound sender', () => {
  it('connects to the address the guard pinned, with the URL\'s own Host', async () => {
    rx.answer(() => ({ status: 204 }));
    expect(await status('/pinned')).toBe(204);
    expect(rx.on('/pinned')).toHaveLength(1);
    expect(rx.on('/pinned')[0]!.headers.host).toBe(`pinned.test:${rx.port}`);
  });

  it('follows no redirect: a 3xx is the answer', async () => {
    rx.answer((_n, req) => (req.path === '/moved' ? { status: 302, headers: { location: '/target' } } : { status: 200 }));
    expect(await status('/moved')).toBe(302);
    expect(rx.on('/target')).toHaveLength(0);
  });

  it('reads an answer up to the limit, and null past it', async () => {
    rx.answer(() => ({ status: 200, body: '0123456789' }));
    const target = await guard.resolve(`http://pinned.test:${rx.port}/body`);
    const atLimit = await sendPinned(target, get, { timeoutMs: 2_000 }, (a) => readAnswer(a, 10));
    expect(atLimit?.toString('utf8')).toBe('0123456789');
    expect(await sendPinned(target, get, { timeoutMs: 2_000 }, (a) => readAnswer(a, 9))).toBeNull();
  });

  it('says why no answer came: a timeout, the caller\'s signal, or the connection', async () => {
    rx.answer(() => 'hang');
    expect(await failure(status('/hang', 200))).toEqual({ why: { kind: 'timeout' }, message: 'timeout' });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    expect(await failure(status('/hang', 2_000, stop.signal))).toEqual({ why: { kind: 'aborted' }, message: 'aborted' });
    const closed = await startReceiver();
    await closed.close();
    const target = await guard.resolve(`http://pinned.test:${closed.port}/`);
    expect(await failure(sendPinned(target, get, { timeoutMs: 2_000 }, async (a) => a.statusCode))).toEqual({
      why: { kind: 'connection', code: 'ECONNREFUSED' },
      message: 'connection failed (ECONNREFUSED)',
    });
  });
});

describe('the Standard Webhooks signing', () => {
  // Now: the standard's verifier refuses a timestamp more than five minutes from its clock.
  const at = new Date();
  const body = JSON.stringify({ type: 'record.lead.created', data: { n: 1 } });
  const raw = (secret: string) => new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });

  it('signs with a whsec_ secret as the standard has it, and with any other secret as its UTF-8 bytes', () => {
    const whsec = `whsec_${Buffer.from('a key of thirty-two bytes, or so').toString('base64')}`;
    const headers = signatureHeaders(whsec, 'msg_1', at, body);
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(whsec).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(whsec).verify(`${body} `, headers)).toThrow();
    const plain = signatureHeaders('plain text secret ü', 'msg_2', at, body);
    expect(raw('plain text secret ü').verify(body, plain)).toEqual(JSON.parse(body));
    expect(() => raw('plain text secret u').verify(body, plain)).toThrow();
  });

  it('signs once per secret: a receiver holding either secret of a rotation accepts it, one holding neither does not', () => {
    const headers = signatureHeaders(['current secret', 'previous secret'], 'msg_3', at, body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(raw('current secret').verify(body, headers)).toEqual(JSON.parse(body));
    expect(raw('previous secret').verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => raw('another secret').verify(body, headers)).toThrow();
  });
});
