import type { Api, SseEvent } from './api.js';

interface LogEvent {
  position: number;
  streamId: string;
  revision: number;
  type: string;
  occurredAt: number;
  userUuid: string | null;
  requestId: string;
  data: unknown;
}

const FEED = '/api/v2/events/stream';

/**
 * Prints the company's event log (POST /api/v2/events/index, ADMIN): the last `last` events, then
 * with `follow` every new one as it is committed (the live feed, GET events/stream, resumed by id
 * when the server cuts it). Filters: requestId, type.
 */
export async function tailEvents(api: Api, o: { requestId?: string; type?: string; last: number; follow: boolean; json: boolean; signal?: AbortSignal }, print: (line: string) => void) {
  const filters = [
    ...(o.requestId ? [{ key: 'requestId', operator: 'equals', value: o.requestId }] : []),
    ...(o.type ? [{ key: 'type', operator: 'equals', value: o.type }] : []),
  ];
  const query = new URLSearchParams({ after: 'now', ...(o.requestId ? { requestId: o.requestId } : {}), ...(o.type ? { type: o.type } : {}) });
  const show = (e: LogEvent) =>
    print(o.json ? JSON.stringify(e) : `${new Date(e.occurredAt).toISOString()}  ${e.type.padEnd(24)} ${e.streamId}@${e.revision}  requestId=${e.requestId}${e.userUuid ? `  user=${e.userUuid}` : ''}`);
  // The feed is opened first, from now: nothing committed between the two reads is missed, and
  // what both return is printed once.
  const live = o.follow ? await api.stream(`${FEED}?${query}`, { signal: o.signal }) : undefined;
  const newest = await api.call<LogEvent[]>('POST', '/api/v2/events/index', { filters, limit: Math.min(100, Math.max(1, o.last)), sort: [{ key: 'occurredAt', direction: 'desc' }] });
  const first = [...newest.data].reverse();
  first.forEach(show);
  if (!live) return;
  const printed = new Set(first.map((e) => e.position));
  await follow(api, live, `${FEED}?${query}`, o.signal, (e) => {
    if (!printed.has(e.position)) show(e);
  });
}

/** Reads the feed until `signal` aborts; a stream the server ends (`event: cut`) is resumed after its last id. */
async function follow(api: Api, live: AsyncIterable<SseEvent>, path: string, signal: AbortSignal | undefined, show: (e: LogEvent) => void) {
  let stream = live;
  let last: string | undefined;
  for (;;) {
    try {
      for await (const e of stream) {
        if (e.event === 'cut') last = (JSON.parse(e.data) as { resumeAfter: string }).resumeAfter;
        else {
          last = e.id ?? last;
          show(JSON.parse(e.data) as LogEvent);
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    if (signal?.aborted) return;
    stream = await api.stream(path, { lastEventId: last, signal });
  }
}
