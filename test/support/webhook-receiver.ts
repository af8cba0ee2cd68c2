import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers: a status (and body, headers), or `hang` to never answer. */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Sets how the n-th request (0-based, counted per path) is answered. */
  answer(fn: (n: number, req: Received) => Answer): void;
  /** Requests to one path. */
  on(path: string): Received[];
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as told (2xx by default). */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  let policy: (n: number, req: Received) => Answer = () => ({ status: 204 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Received = { at: Date.now(), path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      const n = counts.get(entry.path) ?? 0;
      counts.set(entry.path, n + 1);
      const answer = policy(n, entry);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    answer: (fn) => {
      policy = fn;
    },
    on: (path) => received.filter((r) => r.path === path),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<Exclude<T, null | undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, null | undefined | false>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
