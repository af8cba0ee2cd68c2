// Follows the company's live event feed (GET /api/v2/events/stream, docs/events.md "The live
// feed") with fetch, since EventSource cannot send the bearer token; a stream the server cuts is
// resumed after its last id.
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../client/index.js';
import { api } from './session.js';

type LoggedEvent = components['schemas']['LoggedEvent'];

async function follow(onEvent: (e: LoggedEvent) => void, signal: AbortSignal) {
  let last: string | undefined;
  while (!signal.aborted) {
    const res = await fetch('/api/v2/events/stream?after=now', {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${api.token ?? ''}`, ...(last ? { 'last-event-id': last } : {}) },
      signal,
    });
    if (!res.ok || !res.body) throw new Error(((await res.json().catch(() => ({}))) as { message?: string }).message ?? `HTTP ${res.status}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, 'm').exec(block)?.[1];
        const data = field('data');
        if (data === undefined) continue;
        if (field('event') === 'cut') last = (JSON.parse(data) as { resumeAfter: string }).resumeAfter;
        else {
          last = field('id') ?? last;
          onEvent(JSON.parse(data) as LoggedEvent);
        }
      }
    }
  }
}

/** While `on`, the events committed since, newest first (at most `keep`), and the error that stopped the feed. */
export function useLiveEvents(on: boolean, keep = 100) {
  const [events, setEvents] = useState<LoggedEvent[]>([]);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!on) return;
    const stop = new AbortController();
    setError(null);
    follow((e) => setEvents((list) => [e, ...list].slice(0, keep)), stop.signal).catch((err: unknown) => {
      if (!stop.signal.aborted) setError(err);
    });
    return () => stop.abort();
  }, [on]);
  return { events, error };
}
