import { randomUUID } from 'node:crypto';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { readAnswer, SendFailed, sendPinned, signatureHeaders, UrlRefused, type UrlGuard } from '../outbound/index.js';

const MAX_ANSWER = 256 * 1024;

export interface AppAnswer {
  statusCode: number;
  ok: boolean;
  /** The receiver's JSON answer (null when it sent none or no JSON); never shown as is. */
  json: unknown;
}

const unreachable = (reason: string) =>
  new DomainError('STATE_NOT_ALLOWED', `the app's endpoint could not be called: ${reason}`, [
    { message: `The app's endpoint could not be called: ${reason}`, type: 'PLATFORM_ERROR', correctionSuggestion: 'Check the app\'s URL (a public http or https address) and that it answers within the timeout' },
  ]);

/**
 * POSTs a signed JSON body to an app's endpoint, through the shared address guard (src/outbound/:
 * private, loopback and metadata addresses refused; the resolved address pinned). Redirects are
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
  // Signed with every secret valid now (the current one, and during a rotation's grace period the previous one).
  const headers = { ...signatureHeaders(secrets, `msg_${randomUUID()}`, new Date(), body), ...opts.extraHeaders, 'content-type': 'application/json', 'user-agent': 'platform-apps/2' };
  try {
    return await sendPinned(target, { method: 'POST', headers, body }, opts, async (answer) => {
      const text = await readAnswer(answer, MAX_ANSWER);
      let json: unknown = null;
      try {
        json = text === null ? null : JSON.parse(text.toString('utf8'));
      } catch {
        json = null;
      }
      return { statusCode: answer.statusCode, ok: answer.statusCode >= 200 && answer.statusCode < 300, json };
    });
  } catch (err) {
    if (!(err instanceof SendFailed)) throw err;
    throw unreachable(err.why.kind === 'timeout' ? `no answer within ${opts.timeoutMs} ms` : err.message);
  }
}
