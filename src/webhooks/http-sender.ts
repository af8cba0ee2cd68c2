import { Agent, request } from 'undici';
import type { LookupFunction } from 'node:net';
import type { SafeTarget } from './url-safety.js';

export interface SendResult {
  /** The receiver's status code, when it answered. */
  statusCode: number | null;
  latencyMs: number;
  ok: boolean;
  /** Our own description of a failure (never the receiver's body). */
  error: string | null;
}

const MAX_DRAIN = 64 * 1024;

/** Connects to the pinned address whatever the name resolves to now: DNS rebinding cannot move it. */
export function pinnedLookup(target: SafeTarget): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

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
  const agent = new Agent({ connect: { lookup: pinnedLookup(target), timeout: opts.timeoutMs }, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
  const started = performance.now();
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  try {
    const res = await request(target.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': opts.userAgent },
      body,
      dispatcher: agent,
      signal,
    });
    await res.body.dump({ limit: MAX_DRAIN }).catch(() => {});
    const latencyMs = Math.round(performance.now() - started);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const redirect = res.statusCode >= 300 && res.statusCode < 400;
    return { statusCode: res.statusCode, latencyMs, ok, error: ok ? null : redirect ? `redirect ${res.statusCode} not followed` : `HTTP ${res.statusCode}` };
  } catch (err) {
    const latencyMs = Math.round(performance.now() - started);
    const code = (err as { code?: string }).code;
    const error = timeout.aborted
      ? `timeout after ${opts.timeoutMs} ms`
      : opts.signal?.aborted
        ? 'aborted (server stopping)'
        : `connection failed${code ? ` (${code})` : ''}`;
    return { statusCode: null, latencyMs, ok: false, error };
  } finally {
    void agent.destroy().catch(() => {});
  }
}
