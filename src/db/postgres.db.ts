import pg from 'pg';
import pgListen from 'pg-listen';
import type { Db, Sql } from './db.js';

// pg-listen is CommonJS with an `exports.default`; under ESM the function sits one level down.
const createPgListen = (pgListen as unknown as { default: typeof pgListen.default }).default;

// int8 as a JS number: positions, revisions and epoch-ms timestamps stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface PostgresDbOptions {
  connectionString: string;
  max?: number;
}

export function createPostgresDb({ connectionString, max = 20 }: PostgresDbOptions): Db {
  // No JIT: the API's statements are short, and a misestimated cost (a filter over a jsonb value,
  // a walk of the log whose limit the planner does not trust) would compile one for 15-25 ms.
  const pool = new pg.Pool({ connectionString, max, options: '-c jit=off' });
  // An idle client's error (the server restarting) must not crash the process.
  pool.on('error', () => {});
  let subscriber: ReturnType<typeof createPgListen> | undefined;
  let connecting: Promise<void> | undefined;

  async function ensureSubscriber() {
    if (!subscriber) {
      subscriber = createPgListen({ connectionString }, { retryLimit: Infinity });
      subscriber.events.on('error', () => {});
      connecting = subscriber.connect();
    }
    await connecting;
    return subscriber;
  }

  return {
    kind: 'postgres',
    async query<T>(text: string, params?: unknown[], name?: string) {
      const result = await pool.query({ text, values: params as unknown[], name });
      return result.rows as T[];
    },
    async queryRows(text: string, params?: unknown[], name?: string) {
      const result = await pool.query({ text, values: params as unknown[], name, rowMode: 'array' });
      return result.rows as unknown[][];
    },
    async transaction<T>(fn: (tx: Sql) => Promise<T>) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const tx: Sql = {
          query: async <R>(text: string, params?: unknown[], name?: string) =>
            (await client.query({ text, values: params as unknown[], name })).rows as R[],
        };
        const out = await fn(tx);
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(script: string) {
      await pool.query(script);
    },
    async listen(channel, onMessage) {
      const sub = await ensureSubscriber();
      const handler = (payload: unknown) => onMessage(typeof payload === 'string' ? payload : JSON.stringify(payload ?? ''));
      sub.notifications.on(channel, handler);
      await sub.listenTo(channel);
      return async () => {
        sub.notifications.removeListener(channel, handler);
      };
    },
    async close() {
      if (subscriber) await subscriber.close().catch(() => {});
      await pool.end();
    },
  };
}
