import { api } from '../session.js';
import { BarChart } from '../chart.js';
import { ErrorBox, Loading, useData } from '../ui.js';

/** Visitor tracking of the company (docs/tracking.md): page views and unique visitors per day, the top pages. ADMIN only. */
export function TrackingChart({ days }: { days: number }) {
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const stats = useData(() => api.get('/api/v2/tracking/stats', { params: { query: { from, to } } }), [from, to]);
  if (stats.loading) return <Loading what="visitor tracking" />;
  if (stats.error) return <ErrorBox error={stats.error} />;
  const s = stats.data;
  if (!s) return null;
  const byDay = new Map(s.days.map((d) => [d.day, d]));
  const all = Array.from({ length: days }, (_, i) => new Date(Date.parse(from) + i * 86_400_000).toISOString().slice(0, 10));
  return (
    <>
      <BarChart title={`Page views per day (UTC), last ${days} days`} bars={all.map((day) => ({ label: day, value: byDay.get(day)?.views ?? 0 }))} />
      <BarChart title={`Unique visitors per day (UTC), last ${days} days`} bars={all.map((day) => ({ label: day, value: byDay.get(day)?.visitors ?? 0, className: 'succeeded' }))} />
      {s.pages.length ? <BarChart title="Top pages by views" bars={s.pages.map((p) => ({ label: p.path, value: p.views }))} /> : <p class="muted">No page views tracked in this range.</p>}
    </>
  );
}
