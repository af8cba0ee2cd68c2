import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { BarChart } from '../chart.js';
import { ErrorBox, Loading, Select, useData } from '../ui.js';
import { TrackingChart } from './tracking-chart.js';

const DAY = 86_400_000;
/** At most this many events are read for the chart (20 pages of 100): the count says when it stopped. */
const MAX_EVENTS = 2_000;

async function eventsPerDay(days: number) {
  const since = Math.floor(Date.now() / DAY) * DAY - (days - 1) * DAY;
  const counts = new Map<number, number>();
  for (let d = 0; d < days; d++) counts.set(since + d * DAY, 0);
  let read = 0;
  let total = 0;
  for (let n = 0; read < MAX_EVENTS; n++) {
    const page = await api.listPost('/api/v2/events/index', { body: { filters: [{ key: 'occurredAt', operator: 'gte', value: since }], limit: 100, page: n } });
    total = page.total;
    for (const e of page.items) {
      const day = Math.floor(e.occurredAt / DAY) * DAY;
      counts.set(day, (counts.get(day) ?? 0) + 1);
    }
    read += page.items.length;
    if (n >= page.lastPage || page.items.length === 0) break;
  }
  return { bars: [...counts].map(([day, value]) => ({ label: new Date(day).toISOString().slice(0, 10), value })), read, total };
}

async function deliveryOutcomes() {
  const hooks = await api.listPost('/api/v2/webhooks/index', { body: { limit: 100 } });
  const counts = { succeeded: 0, failed: 0, pending: 0 };
  for (const h of hooks.items) {
    const page = await api.listPost('/api/v2/webhooks/{uuid}/deliveries/index', { params: { path: { uuid: h.uuid } }, body: { limit: 100 } });
    for (const d of page.items) counts[d.status] += 1;
  }
  return { bars: Object.entries(counts).map(([label, value]) => ({ label, value, className: label })), hooks: hooks.items.length };
}

/** Events per day for the company, and webhook delivery outcomes. */
export function Charts() {
  const [days, setDays] = useState(14);
  const perDay = useData(() => eventsPerDay(days), [days]);
  const outcomes = useData(() => deliveryOutcomes(), []);
  return (
    <>
      <h1>Charts</h1>
      <Select label="Days" name="days" value={String(days)} options={['7', '14', '30']} onChange={(v) => setDays(Number(v))} />
      <ErrorBox error={perDay.error} />
      {perDay.loading ? <Loading what="events" /> : null}
      {perDay.data ? (
        <>
          <BarChart title={`Events per day (UTC), last ${days} days`} bars={perDay.data.bars} />
          <p class="muted">
            {perDay.data.read} of {perDay.data.total} events counted{perDay.data.read < perDay.data.total ? ` (the first ${MAX_EVENTS} only)` : ''}.
          </p>
        </>
      ) : null}
      <ErrorBox error={outcomes.error} />
      {outcomes.data ? <BarChart title={`Webhook delivery outcomes (latest 100 of each of ${outcomes.data.hooks} webhooks)`} bars={outcomes.data.bars} /> : null}
      <TrackingChart days={days} />
    </>
  );
}
