import type { Pool } from 'undici';

/**
 * A fresh process's first queries (issue 33, ADR 0019): each request timed on its own while a
 * probe asks `/health` every 5 ms; then the process is left to finish its background builds (read
 * from /metrics, `platform_record_index_builds`) and each request is timed again. The worst
 * `/health` answer and the server's own event-loop delay (`platform_nodejs_eventloop_lag_max_seconds`,
 * reset by each scrape) say whether a first query held every other request.
 */
export interface FirstQuery {
  label: string;
  request: { method: 'GET' | 'POST' | 'PUT'; path: string; body?: unknown };
}

async function ask(pool: Pool, req: FirstQuery['request'], token?: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  const res = await pool.request({
    method: req.method,
    path: req.path,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
  });
  for await (const _ of res.body);
  return { ms: performance.now() - t0, status: res.statusCode };
}

/** The server's metrics as name (with labels) to value. */
export async function scrape(pool: Pool, metricsToken: string): Promise<Map<string, number>> {
  const res = await pool.request({ method: 'GET', path: '/metrics', headers: { authorization: `Bearer ${metricsToken}` } });
  const text = await res.body.text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** The event loop's worst delay (ms) since the last scrape. */
export const loopMaxMs = async (pool: Pool, metricsToken: string) => ((await scrape(pool, metricsToken)).get('platform_nodejs_eventloop_lag_max_seconds') ?? NaN) * 1000;

/**
 * Waits (at most `seconds`) until the server runs no background build of its record index; how
 * long that took, and the event loop's worst delay over the wait (each scrape resets it).
 */
export async function buildsSettled(pool: Pool, metricsToken: string, seconds = 120): Promise<{ ms: number; loopMs: number }> {
  const t0 = performance.now();
  let loopMs = 0;
  while (performance.now() - t0 < seconds * 1000) {
    const metrics = await scrape(pool, metricsToken);
    loopMs = Math.max(loopMs, (metrics.get('platform_nodejs_eventloop_lag_max_seconds') ?? 0) * 1000);
    // A server without the gauge (before ADR 0019) builds inside the request: nothing to wait for.
    if ((metrics.get('platform_record_index_builds') ?? 0) === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { ms: performance.now() - t0, loopMs };
}

export async function firstQueries(pool: Pool, token: string, metricsToken: string, queries: FirstQuery[], say: (s: string) => void) {
  // The floor: the worst delay of the idle process over 2 s (a loaded machine delays it too).
  await loopMaxMs(pool, metricsToken);
  await new Promise((r) => setTimeout(r, 2000));
  say(`  idle event loop worst over 2 s: ${(await loopMaxMs(pool, metricsToken)).toFixed(0)} ms`);
  const rss = async () => (((await scrape(pool, metricsToken)).get('platform_process_resident_memory_bytes') ?? 0) / 2 ** 20).toFixed(0);
  say(`  the server's RSS before them: ${await rss()} MiB`);
  say('  first queries of a fresh process | first answer ms | /health worst ms meanwhile | event loop worst ms | build after it ms | answer after the build ms | RSS after MiB');
  for (const q of queries) {
    let probing = true;
    let worst = 0;
    const probe = (async () => {
      while (probing) {
        worst = Math.max(worst, (await ask(pool, { method: 'GET', path: '/api/v2/health' })).ms);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const first = await ask(pool, q.request, token);
    const built = await buildsSettled(pool, metricsToken);
    probing = false;
    await probe;
    const loop = Math.max(built.loopMs, await loopMaxMs(pool, metricsToken));
    const again = await ask(pool, q.request, token);
    say(`  ${q.label} | ${first.ms.toFixed(0)}${first.status >= 300 ? ` (status ${first.status})` : ''} | ${worst.toFixed(0)} | ${loop.toFixed(0)} | ${built.ms.toFixed(0)} | ${again.ms.toFixed(1)} | ${await rss()}`);
  }
}
