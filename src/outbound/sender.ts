import type { LookupFunction } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import type { SafeTarget } from './address-guard.js';

export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

export type Answer = Dispatcher.ResponseData;

/** Why a request got no answer: a timeout, the caller's signal (a server stopping), or the connection. */
export type NoAnswer = { kind: 'timeout' } | { kind: 'aborted' } | { kind: 'connection'; code: string | undefined };

/** No answer came; `code` is the connection error's code (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, ...), never the receiver's words. */
export class SendFailed extends Error {
  constructor(readonly why: NoAnswer, readonly code: string | undefined) {
    super(why.kind === 'connection' ? `connection failed${code ? ` (${code})` : ''}` : why.kind);
    this.name = 'SendFailed';
  }
}

/** Connects to the pinned address whatever the name resolves to now: DNS rebinding cannot move it. */
function pinnedLookup(target: SafeTarget): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

function noAnswer(err: unknown, timeout: AbortSignal, signal: AbortSignal | undefined): SendFailed {
  const raw = (err as { code?: unknown }).code;
  const code = typeof raw === 'string' ? raw : undefined;
  if (timeout.aborted || (err as Error).name === 'TimeoutError') return new SendFailed({ kind: 'timeout' }, code);
  if (signal?.aborted) return new SendFailed({ kind: 'aborted' }, code);
  return new SendFailed({ kind: 'connection', code }, code);
}

/**
 * Sends one request to the address the guard resolved (`target`, pinned: the TLS name and the
 * Host header stay the URL's). Redirects are never followed (undici's `request` follows none):
 * a 3xx is an answer like any other. Connecting, the headers and the body each get `timeoutMs`,
 * and the whole exchange, `read` included, ends at `timeoutMs` or when `signal` aborts. `read`
 * takes the answer before the connection is let go. No answer: throws SendFailed.
 */
export async function sendPinned<T>(
  target: SafeTarget,
  req: OutboundRequest,
  opts: { timeoutMs: number; signal?: AbortSignal },
  read: (answer: Answer) => Promise<T>,
): Promise<T> {
  const agent = new Agent({ connect: { lookup: pinnedLookup(target), timeout: opts.timeoutMs }, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  try {
    const answer = await request(target.url, { method: req.method, headers: req.headers, body: req.body, dispatcher: agent, signal });
    return await read(answer);
  } catch (err) {
    throw noAnswer(err, timeout, opts.signal);
  } finally {
    void agent.destroy().catch(() => {});
  }
}

/** Reads the answer's body up to `limit` bytes; null when it is longer (the rest is not read). */
export async function readAnswer(answer: Answer, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body) {
    size += (chunk as Buffer).length;
    if (size > limit) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Reads and drops up to `limit` bytes of the answer's body, so the receiver is not cut off mid-answer. */
export async function dropAnswer(answer: Answer, limit: number): Promise<void> {
  await answer.body.dump({ limit }).catch(() => {});
}
