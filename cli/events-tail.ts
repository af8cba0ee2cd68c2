import type { Api } from './api.js';

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

/**
 * Prints the company's event log (POST /api/v2/events/index, ADMIN): the last `last` events, then
 * with `follow` every new one as it is appended (polled every `pollMs`). Filters: requestId, type.
 */
export async function tailEvents(api: Api, o: { requestId?: string; type?: string; last: number; follow: boolean; pollMs: number; json: boolean; signal?: AbortSignal }, print: (line: string) => void) {
  const filters = [
    ...(o.requestId ? [{ key: 'requestId', operator: 'equals', value: o.requestId }] : []),
    ...(o.type ? [{ key: 'type', operator: 'equals', value: o.type }] : []),
  ];
  const seen = new Set<number>();
  const show = (e: LogEvent) => {
    if (seen.has(e.position)) return;
    seen.add(e.position);
    print(o.json ? JSON.stringify(e) : `${new Date(e.occurredAt).toISOString()}  ${e.type.padEnd(24)} ${e.streamId}@${e.revision}  requestId=${e.requestId}${e.userUuid ? `  user=${e.userUuid}` : ''}`);
  };
  const newest = await api.call<LogEvent[]>('POST', '/api/v2/events/index', { filters, limit: Math.min(100, Math.max(1, o.last)), sort: [{ key: 'occurredAt', direction: 'desc' }] });
  const first = [...newest.data].reverse();
  first.forEach(show);
  let since = first.length > 0 ? first[first.length - 1]!.occurredAt : Date.now() - 1000;
  while (o.follow && !o.signal?.aborted) {
    await new Promise((r) => setTimeout(r, o.pollMs));
    for (let page = 0; ; page++) {
      const res = await api.call<LogEvent[]>('POST', '/api/v2/events/index', {
        filters: [...filters, { key: 'occurredAt', operator: 'gte', value: since }],
        limit: 100,
        page,
        sort: [{ key: 'occurredAt', direction: 'asc' }],
      });
      res.data.forEach(show);
      if (res.data.length > 0) since = Math.max(since, res.data[res.data.length - 1]!.occurredAt);
      if (res.data.length < 100) break;
    }
  }
}
