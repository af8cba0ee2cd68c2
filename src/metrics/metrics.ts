import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { objectStoreBuilding, objectStoreCells } from '../../read-models/record-index/index.js';

/**
 * The process's Prometheus metrics (docs/operations.md, "Metrics"). One registry per process:
 * the event store, the reactors, the webhook dispatcher and the rebuild record into it, and
 * `GET /metrics` (src/metrics/metrics.routes.ts) renders it for an operator's token.
 */
export const metricsRegistry = new Registry();
// Among them the event loop's delay since the last scrape (`platform_nodejs_eventloop_lag_max_seconds`,
// p99, mean: monitorEventLoopDelay at 10 ms resolution, reset at each scrape).
collectDefaultMetrics({ register: metricsRegistry, prefix: 'platform_', eventLoopMonitoringPrecision: 10 });

// The in-process record index (ADR 0006, 0019): builds under way and what it holds.
new Gauge({
  name: 'platform_record_index_builds',
  help: 'Background builds of the in-process record index under way: objects read or prepared while SQL answers their requests (ADR 0019)',
  registers: [metricsRegistry],
  collect() {
    this.set(objectStoreBuilding());
  },
});
new Gauge({
  name: 'platform_record_index_cells',
  help: 'Values the in-process record index holds over every object: what INDEX_STORE_CELLS bounds',
  registers: [metricsRegistry],
  collect() {
    this.set(objectStoreCells());
  },
});

const seconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequestDuration = new Histogram({
  name: 'platform_http_request_duration_seconds',
  help: 'HTTP requests by method, route (the pattern, not the path) and status; _count gives the request rate',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: seconds,
  registers: [metricsRegistry],
});

export const appendDuration = new Histogram({
  name: 'platform_event_store_append_duration_seconds',
  help: 'Event-store appends, from submit to commit (group commit wait included), by outcome',
  labelNames: ['outcome'] as const,
  buckets: seconds,
  registers: [metricsRegistry],
});

export const groupCommitSize = new Histogram({
  name: 'platform_event_store_group_commit_size',
  help: 'Appends committed together by one group commit',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
  registers: [metricsRegistry],
});

export const reactorEventsProcessed = new Counter({
  name: 'platform_reactor_events_processed_total',
  help: 'Events of the global log a reactor has committed its checkpoint past, in this process',
  labelNames: ['reactor'] as const,
  registers: [metricsRegistry],
});

export const webhookDeliveries = new Counter({
  name: 'platform_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, will retry), failed (failed, parked), refused (parked before sending)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const rebuildApplied = new Gauge({
  name: 'platform_rebuild_events_applied',
  help: 'Events replayed into the read models by the rebuild running (or last run) in this process',
  registers: [metricsRegistry],
});
export const rebuildTotal = new Gauge({
  name: 'platform_rebuild_events_total',
  help: 'Events the rebuild running (or last run) in this process has to replay',
  registers: [metricsRegistry],
});
export const rebuildRunning = new Gauge({
  name: 'platform_rebuild_running',
  help: '1 while a rebuild runs in this process',
  registers: [metricsRegistry],
});

/** Times `work` into `histogram` with outcome ok or error. */
export async function timed<T>(histogram: Histogram<'outcome'>, work: () => Promise<T>): Promise<T> {
  const end = histogram.startTimer();
  try {
    const out = await work();
    end({ outcome: 'ok' });
    return out;
  } catch (err) {
    end({ outcome: 'error' });
    throw err;
  }
}

export const reactorLagEvents = new Gauge({
  name: 'platform_reactor_lag_events',
  help: 'Events of the global log after the reactor checkpoint (read at scrape, counted up to 1,000,000)',
  labelNames: ['reactor'] as const,
  registers: [metricsRegistry],
});
export const reactorLagSeconds = new Gauge({
  name: 'platform_reactor_lag_seconds',
  help: 'Age of the oldest event the reactor has not processed yet (0 when it is caught up), read at scrape',
  labelNames: ['reactor'] as const,
  registers: [metricsRegistry],
});
