import { useState } from 'preact/hooks';
import type { components } from '../../client/index.js';
import { api } from '../session.js';
import { useLiveEvents } from '../live-events.js';
import { go } from '../router.js';
import { ErrorBox, Field, Loading, Select, useData, when } from '../ui.js';

type LoggedEvent = components['schemas']['LoggedEvent'];
const keyOf = (e: LoggedEvent) => `${e.streamId}@${e.revision}`;

/**
 * What a request caused: the events with its requestId, then every event that shares their
 * correlationId (reactors' writes carry the correlation of the request that caused them, and
 * `causationId = <stream>@<revision>` of the event they acted on), as a tree across streams.
 */
async function chainOf(by: 'requestId' | 'correlationId', value: string) {
  const direct = await api.listPost('/api/v2/events/index', { body: { filters: [{ key: by, operator: 'equals', value }], sort: [{ key: 'occurredAt', direction: 'asc' }], limit: 100 } });
  const correlations = [...new Set(direct.items.map((e) => e.correlationId).filter(Boolean))];
  const chain = correlations.length
    ? await api.listPost('/api/v2/events/index', { body: { filters: [{ key: 'correlationId', operator: 'in', value: correlations }], sort: [{ key: 'occurredAt', direction: 'asc' }], limit: 100 } })
    : direct;
  const byKey = new Map(chain.items.map((e) => [keyOf(e), e]));
  const depth = (e: LoggedEvent, seen = 0): number => (e.causationId && byKey.has(e.causationId) && seen < 20 ? 1 + depth(byKey.get(e.causationId)!, seen + 1) : 0);
  return { direct: direct.items, chain: chain.items.map((e) => ({ event: e, depth: depth(e) })), total: chain.total, streams: new Set(chain.items.map((e) => e.streamId)).size };
}

/** The event log searched by requestId or correlationId: support staff's view of a request. */
export function Events({ query }: { query: URLSearchParams }) {
  const by = query.has('correlationId') ? 'correlationId' : 'requestId';
  const value = query.get(by) ?? '';
  const [draft, setDraft] = useState({ by, value });
  const result = useData(() => (value ? chainOf(by, value) : Promise.resolve(null)), [by, value]);
  const recent = useData(() => (value ? Promise.resolve(null) : api.listPost('/api/v2/events/index', { body: { limit: 25 } })), [value]);
  const [open, setOpen] = useState<string | null>(null);
  const [following, setFollowing] = useState(false);
  const live = useLiveEvents(following && !value);
  const row = (e: LoggedEvent, depth: number, mark: boolean) => (
    <tr key={e.position} class={mark ? 'current' : ''} data-testid="event-row">
      <td>{e.position}</td>
      <td>{when(e.occurredAt)}</td>
      <td style={`padding-left: ${0.5 + depth * 1.2}rem`}>
        {depth ? '↳ ' : ''}
        <strong>{e.type}</strong>
        {mark ? <span class="muted"> (this request)</span> : null}
      </td>
      <td>
        {e.streamId}@{e.revision}
      </td>
      <td>
        <a href={`#/events?requestId=${encodeURIComponent(e.requestId)}`}>{e.requestId}</a>
      </td>
      <td>{e.causationId ?? '—'}</td>
      <td>
        <button type="button" class="secondary" aria-expanded={open === keyOf(e)} onClick={() => setOpen(open === keyOf(e) ? null : keyOf(e))}>
          Data
        </button>
        {open === keyOf(e) ? <pre>{JSON.stringify(e.data, null, 2)}</pre> : null}
      </td>
    </tr>
  );
  const head = (
    <thead>
      <tr>
        <th scope="col">Position</th>
        <th scope="col">When</th>
        <th scope="col">Event</th>
        <th scope="col">Stream@revision</th>
        <th scope="col">requestId</th>
        <th scope="col">Caused by</th>
        <th scope="col">Data</th>
      </tr>
    </thead>
  );
  return (
    <>
      <h1>Event log</h1>
      <form
        class="inline"
        aria-label="Search the event log"
        onSubmit={(e) => {
          e.preventDefault();
          go(`#/events?${draft.by}=${encodeURIComponent(draft.value.trim())}`);
        }}
      >
        <Select label="Search by" name="searchBy" value={draft.by} options={['requestId', 'correlationId']} onChange={(v) => setDraft({ ...draft, by: v as 'requestId' })} />
        <Field label="Id" name="searchValue" value={draft.value} onInput={(v) => setDraft({ ...draft, value: v })} required />
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={result.error ?? recent.error ?? live.error} />
      {value && result.loading ? <Loading what="events" /> : null}
      {result.data ? (
        <>
          <p aria-live="polite" data-testid="chain-summary">
            {result.data.direct.length} events with {by} {value}; the chain: {result.data.chain.length} events across {result.data.streams} streams
            {result.data.total > result.data.chain.length ? ` (first ${result.data.chain.length} of ${result.data.total})` : ''}.
          </p>
          <table aria-label="Events of the request">
            {head}
            <tbody>{result.data.chain.map(({ event, depth }) => row(event, depth, result.data!.direct.some((d) => d.position === event.position)))}</tbody>
          </table>
        </>
      ) : null}
      {recent.data ? (
        <>
          <h2>Latest events</h2>
          <button type="button" class="secondary" aria-pressed={following} onClick={() => setFollowing(!following)}>
            {following ? 'Stop following' : 'Follow live'}
          </button>
          <table aria-label="Latest events">
            {head}
            <tbody>{[...live.events.filter((e) => !recent.data!.items.some((r) => r.position === e.position)), ...recent.data.items].map((e) => row(e, 0, false))}</tbody>
          </table>
        </>
      ) : null}
    </>
  );
}
