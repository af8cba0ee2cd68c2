import { dropAnswer, SendFailed, sendPinned, type SafeTarget } from '../outbound/index.js';

export interface SendResult {
  /** The receiver's status code, when it answered. */
  statusCode: number | null;
  latencyMs: number;
  ok: boolean;
  /** Our own description of a failure (never the receiver's body). */
  error: string | null;
}

const MAX_DRAIN = 64 * 1024;

/**
 * POSTs one delivery. Only a 2xx is success; a redirect is a failure (never followed); no answer
 * within `timeoutMs` is a failure. The receiver's body is read (up to 64 KiB) and dropped.
 */
export async function postDelivery(
  target: SafeTarget,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; signal?: AbortSignal; userAgent: string },
): Promise<SendResult> {
  const started = performance.now();
  const request = { method: 'POST' as const, headers: { ...headers, 'content-type': 'application/json', 'user-agent': opts.userAgent }, body };
  try {
    const statusCode = await sendPinned(target, request, opts, async (answer) => {
      await dropAnswer(answer, MAX_DRAIN);
      return answer.statusCode;
    });
    const latencyMs = Math.round(performance.now() - started);
    const ok = statusCode >= 200 && statusCode < 300;
    const redirect = statusCode >= 300 && statusCode < 400;
    return { statusCode, latencyMs, ok, error: ok ? null : redirect ? `redirect ${statusCode} not followed` : `HTTP ${statusCode}` };
  } catch (err) {
    if (!(err instanceof SendFailed)) throw err;
    const latencyMs = Math.round(performance.now() - started);
    const { why } = err;
    const error = why.kind === 'timeout' ? `timeout after ${opts.timeoutMs} ms` : why.kind === 'aborted' ? 'aborted (server stopping)' : err.message;
    return { statusCode: null, latencyMs, ok: false, error };
  }
}
