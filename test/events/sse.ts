import { randomUUID } from 'node:crypto';
import type { EventStore } from '../../src/event-store/port.js';

/** One Server-Sent Event as a client sees it. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** A stream opened with fetch: the events and comments parsed as they arrive. */
export interface SseStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  /** Resolves once `n` events arrived (or the stream ended, or `timeoutMs` passed). */
  take(n: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
  /** The body, for an answer that is not a stream (an error body). */
  json(): Promise<unknown>;
}

function parseBlock(block: string, into: SseStream) {
  const e: SseEvent = { event: 'message', data: '' };
  const data: string[] = [];
  let dispatch = false;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      into.comments.push(line.slice(1).trim());
      continue;
    }
    const at = line.indexOf(':');
    const [field, value] = at < 0 ? [line, ''] : [line.slice(0, at), line.slice(at + 1).replace(/^ /, '')];
    if (field === 'id') e.id = value;
    if (field === 'event') e.event = value;
    if (field === 'data') {
      data.push(value);
      dispatch = true;
    }
  }
  if (!dispatch) return;
  e.data = data.join('\n');
  into.events.push(e);
}

/** Opens `GET /api/v2/events/stream` (or another SSE url) and reads it in the background. */
export async function openStream(base: string, path: string, headers: Record<string, string>): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(`${base}${path}`, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  let wake = () => {};
  let done = false;
  const stream: SseStream = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: [],
    ended: Promise.resolve(),
    close: () => abort.abort(),
    json: () => res.json(),
    async take(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (stream.events.length < n && !done && Date.now() < until) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      }
      return stream.events.slice(0, n);
    },
  };
  if (res.status !== 200 || !res.body) return stream;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  stream.ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          parseBlock(buffer.slice(0, cut), stream);
          buffer = buffer.slice(cut + 2);
        }
        wake();
      }
    } catch {
      // aborted by the test
    } finally {
      done = true;
      wake();
    }
  })();
  return stream;
}

/** Appends `count` probe events to one stream of `tenant`, straight to the log (not a domain event: the feed shows any). */
export async function appendProbes(store: EventStore, tenant: string, streamId: string, count: number, opts: { requestId?: string; type?: string; pad?: number; data?: Record<string, unknown> } = {}) {
  const requestId = opts.requestId ?? randomUUID();
  const events = Array.from({ length: count }, (_, i) => ({
    type: opts.type ?? 'FeedProbe',
    version: 1,
    data: { i, ...opts.data, ...(opts.pad ? { pad: 'x'.repeat(opts.pad) } : {}) },
    metadata: { tenant, userUuid: null, requestId, correlationId: requestId, causationId: null, occurredAt: Date.now(), schemaVersion: 1 },
  }));
  const result = await store.append(tenant, streamId, events, { expectedStreamRevision: 'any' });
  return result.events;
}
