import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { BarChart } from '../chart.js';
import { ErrorBox, Loading, Section, useAction, useData, when } from '../ui.js';

/** Webhooks, each with its deliveries (outcomes charted), redelivery and replay. */
export function Webhooks() {
  const hooks = useData(() => api.listPost('/api/v2/webhooks/index', { body: { limit: 100 } }), []);
  const [selected, setSelected] = useState<string | null>(null);
  return (
    <>
      <h1>Webhooks</h1>
      <ErrorBox error={hooks.error} />
      {hooks.loading && !hooks.data ? <Loading what="webhooks" /> : null}
      {hooks.data?.items.length === 0 ? <p>No webhooks yet (POST /api/v2/webhooks creates one).</p> : null}
      <ul>
        {hooks.data?.items.map((h) => (
          <li key={h.uuid}>
            <button type="button" class={selected === h.uuid ? '' : 'secondary'} aria-pressed={selected === h.uuid} onClick={() => setSelected(h.uuid)}>
              {h.label || h.name || h.topic}
            </button>{' '}
            <span class="muted">
              {h.topic} → {h.url}
            </span>
          </li>
        ))}
      </ul>
      {selected ? <Deliveries webhookUuid={selected} /> : null}
    </>
  );
}

function Deliveries({ webhookUuid }: { webhookUuid: string }) {
  const list = useData(() => api.listPost('/api/v2/webhooks/{uuid}/deliveries/index', { params: { path: { uuid: webhookUuid } }, body: { limit: 100 } }), [webhookUuid]);
  const action = useAction();
  const [notice, setNotice] = useState('');
  const [from, setFrom] = useState(() => new Date(Date.now() - 24 * 3600_000).toISOString().slice(0, 16));
  const items = list.data?.items ?? [];
  const outcomes = (['succeeded', 'failed', 'pending'] as const).map((status) => ({ label: status, value: items.filter((d) => d.status === status).length, className: status }));
  const redeliver = (deliveryUuid: string) =>
    action.run(async () => {
      await api.post('/api/v2/webhooks/{uuid}/deliveries/{deliveryUuid}/redeliver', { params: { path: { uuid: webhookUuid, deliveryUuid } } });
      setNotice('Redelivery queued');
      list.reload();
    });
  const replay = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const r = await api.post('/api/v2/webhooks/{uuid}/replay', { params: { path: { uuid: webhookUuid } }, body: { from: new Date(from).getTime() } });
      setNotice(`Replay ${r.replayUuid}: ${r.enqueued} deliveries queued from ${r.scanned} events${r.truncated ? ' (truncated: replay again to continue)' : ''}`);
      list.reload();
    });
  };
  return (
    <Section title="Deliveries">
      <ErrorBox error={list.error ?? action.error} />
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <BarChart title={`Delivery outcomes (latest ${items.length})`} bars={outcomes} />
      <form class="inline" onSubmit={replay} aria-label="Replay events">
        <label>
          Replay events since
          <input type="datetime-local" name="replayFrom" value={from} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={action.busy}>
          Replay
        </button>
      </form>
      <table aria-label="Deliveries">
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Source</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {items.map((d) => (
            <tr key={d.uuid}>
              <td>{when(d.createdAt)}</td>
              <td>
                {d.eventType ?? d.topic} <span class="muted">{d.streamId}</span>
              </td>
              <td>{d.status}</td>
              <td>{d.attempts}</td>
              <td>
                {d.lastResponseCode ?? ''} {d.lastError ?? ''} {d.lastLatencyMs !== null ? `${d.lastLatencyMs} ms` : ''}
              </td>
              <td>{d.source}</td>
              <td>
                <button type="button" class="secondary" onClick={() => void redeliver(d.uuid)} disabled={action.busy || d.status === 'pending'}>
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
