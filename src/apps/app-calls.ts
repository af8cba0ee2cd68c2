import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { pinnedLookup } from '../webhooks/http-sender.js';
import { signerFor } from '../webhooks/signing.js';
import { UrlRefused, type UrlGuard } from '../webhooks/url-safety.js';

const MAX_ANSWER = 256 * 1024;

export interface AppAnswer {
  statusCode: number;
  ok: boolean;
  /** The receiver's JSON answer (null when it sent none or no JSON); never shown as is. */
  json: unknown;
}

/**
 * Standard Webhooks headers signed with every secret valid now (the current one, and during a
 * rotation's grace period the previous one): a receiver that checks either secret accepts it.
 */
export function signedHeaders(secrets: string[], body: string, at = new Date()) {
  const id = `msg_${randomUUID()}`;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => signerFor(s).sign(id, at, body)).join(' '),
  };
}

const unreachable = (reason: string) =>
  new DomainError('STATE_NOT_ALLOWED', `the app's endpoint could not be called: ${reason}`, [
    { message: `The app's endpoint could not be called: ${reason}`, type: 'PLATFORM_ERROR', correctionSuggestion: 'Check the app\'s URL (a public http or https address) and that it answers within the timeout' },
  ]);

/**
 * POSTs a signed JSON body to an app's endpoint, through the webhook delivery's address guard
 * (private, loopback and metadata addresses refused; the resolved address pinned). Redirects are
 * not followed; the answer is read up to 256 KiB.
 */
export async function callApp(guard: UrlGuard, url: string, payload: unknown, secrets: string[], opts: { timeoutMs: number; extraHeaders?: Record<string, string> }): Promise<AppAnswer> {
  let target;
  try {
    target = await guard.resolve(url);
  } catch (err) {
    if (err instanceof UrlRefused) throw unreachable(err.reason);
    throw err;
  }
  const body = JSON.stringify(payload);
  const agent = new Agent({ connect: { lookup: pinnedLookup(target), timeout: opts.timeoutMs }, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
  try {
    const res = await request(target.url, {
      method: 'POST',
      headers: { ...signedHeaders(secrets, body), ...opts.extraHeaders, 'content-type': 'application/json', 'user-agent': 'platform-apps/2' },
      body,
      dispatcher: agent,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_ANSWER) break;
      chunks.push(chunk as Buffer);
    }
    let json: unknown = null;
    try {
      json = size <= MAX_ANSWER ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
    } catch {
      json = null;
    }
    return { statusCode: res.statusCode, ok: res.statusCode >= 200 && res.statusCode < 300, json };
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw unreachable(code === 'UND_ERR_ABORTED' || (err as Error).name === 'TimeoutError' ? `no answer within ${opts.timeoutMs} ms` : `connection failed${code ? ` (${code})` : ''}`);
  } finally {
    void agent.destroy().catch(() => {});
  }
}
