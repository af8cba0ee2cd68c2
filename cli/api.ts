import { Agent, request } from 'undici';

/** An API error: the spec's error body (part 7), with the requestId to quote to support. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { message?: string; errors?: { message: string; type: string; correctionSuggestion: string }[]; requestId?: string },
  ) {
    super(body.message ?? `HTTP ${status}`);
  }

  /** One line per error entry, then the requestId. */
  describe(): string {
    const lines = [`${this.status} ${this.body.message ?? ''}`.trim()];
    for (const e of this.body.errors ?? []) lines.push(`  ${e.message}${e.correctionSuggestion ? ` (${e.correctionSuggestion})` : ''}`);
    if (this.body.requestId) lines.push(`  requestId: ${this.body.requestId}`);
    return lines.join('\n');
  }

  /** The entries' messages in one line (what a rejected row reports). */
  short(): string {
    const entries = (this.body.errors ?? []).map((e) => e.message);
    return entries.length > 0 ? entries.join('; ') : (this.body.message ?? `HTTP ${this.status}`);
  }
}

/** One Server-Sent Event. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export interface Api {
  call<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<{ data: T; total?: number; lastPage?: number }>;
  /** Opens a Server-Sent Events stream (resolves once the server answered; an error body throws ApiError) and yields its events. */
  stream(path: string, o?: { lastEventId?: string; signal?: AbortSignal }): Promise<AsyncIterable<SseEvent>>;
  close(): Promise<void>;
}

/** Splits a text/event-stream body into events (comments and id-only blocks are skipped). */
async function* sseEvents(body: AsyncIterable<Buffer | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const e: SseEvent = { event: 'message', data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        const m = /^([^:]+): ?(.*)$/.exec(line);
        if (m?.[1] === 'id') e.id = m[2];
        else if (m?.[1] === 'event') e.event = m[2]!;
        else if (m?.[1] === 'data') data.push(m[2]!);
      }
      if (data.length > 0) yield { ...e, data: data.join('\n') };
    }
  }
}

/** A keep-alive client of the platform at `url`, with the bearer token when there is one. */
export function makeApi(url: string, token?: string, connections = 32): Api {
  const agent = new Agent({ connections, keepAliveTimeout: 10_000, pipelining: 1 });
  const base = url.replace(/\/+$/, '');
  return {
    async call(method, path, body) {
      const res = await request(`${base}${path}`, {
        method,
        dispatcher: agent,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.body.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        parsed = { message: text.slice(0, 200) };
      }
      if (res.statusCode >= 400) throw new ApiError(res.statusCode, parsed as ApiError['body']);
      return parsed as { data: never; total?: number; lastPage?: number };
    },
    async stream(path, o = {}) {
      const res = await request(`${base}${path}`, {
        method: 'GET',
        dispatcher: agent,
        signal: o.signal,
        headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(o.lastEventId ? { 'last-event-id': o.lastEventId } : {}) },
      });
      if (res.statusCode >= 400) {
        const text = await res.body.text();
        throw new ApiError(res.statusCode, (() => {
          try {
            return JSON.parse(text) as ApiError['body'];
          } catch {
            return { message: text.slice(0, 200) };
          }
        })());
      }
      return sseEvents(res.body);
    },
    close: () => agent.close(),
  };
}

/** A property of an object as the CLI needs it: its name, type and format. */
export interface PropertyInfo {
  name: string;
  type: string;
  format: string;
}

/** The live properties of the object named `objectName`, in the object's order. */
export async function propertiesOf(api: Api, objectName: string): Promise<PropertyInfo[]> {
  const { data: objects } = await api.call<{ uuid: string; name: string }[]>('POST', '/api/v2/objects/index', { filters: [{ key: 'name', operator: 'equals', value: objectName }], limit: 1 });
  const object = objects[0];
  if (!object) throw new Error(`no object named ${objectName} in the selected company`);
  const out: PropertyInfo[] = [];
  for (let page = 0; ; page++) {
    const res = await api.call<PropertyInfo[]>('POST', `/api/v2/objects/${object.uuid}/properties/index`, { limit: 100, page });
    out.push(...res.data.map((p) => ({ name: p.name, type: p.type, format: p.format })));
    if (res.data.length < 100) return out;
  }
}
