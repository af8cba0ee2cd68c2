import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { productionEnv } from './server-env.js';

/** One request of a benchmark: JSON in, JSON out. */
export interface Req {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
}

/**
 * A benchmark's HTTP side: keep-alive requests to the server on `port` (at most `concurrency`
 * sockets), `must` for the set-up calls, and `startServer` for the server process itself (the
 * sources through tsx, as in production, the bench's own settings over them). Shared by
 * bench:cms and bench:forms.
 */
export function benchHttp(port: number, concurrency: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

  function request(req: Req, token: string): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
      const r = http.request(
        {
          host: '127.0.0.1',
          port,
          method: req.method,
          path: req.path,
          agent,
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
        },
      );
      r.on('error', reject);
      if (payload) r.write(payload);
      r.end();
    });
  }

  async function must(req: Req, token: string) {
    const res = await request(req, token);
    if (res.status >= 300) throw new Error(`${req.method} ${req.path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  }

  /** Starts the server with `env` over the production settings and resolves once it answers. */
  async function startServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<ChildProcess> {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', ...productionEnv, PASSWORD_SCRYPT_LOG_N: '12', ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    for (let i = 0; i < 600; i++) {
      try {
        await request({ method: 'GET', path: '/api/v2/openapi.json' }, '');
        return child;
      } catch {
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    throw new Error('server did not start');
  }

  return { request, must, startServer, close: () => agent.destroy() };
}
