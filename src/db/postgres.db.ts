import pg from 'pg';
import pgListen from 'pg-listen';
import type { Db, Sql } from './db.js';
import { requestGone, requestSignal } from './query-signal.js';

// pg-listen is CommonJS with an `exports.default`; under ESM the function sits one level down.
const createPgListen = (pgListen as unknown as { default: typeof pgListen.default }).default;

// int8 as a JS number: positions, revisions and epoch-ms timestamps stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface PostgresDbOptions {
  connectionString: string;
  max?: number;
  /** Every statement of the pool's connections is cancelled after this long (0 or absent: no limit). */
  statementTimeoutMs?: number;
}

export function createPostgresDb({ connectionString, max = 20, statementTimeoutMs = 0 }: PostgresDbOptions): Db {
  // No JIT: the API's statements are short, and a misestimated cost (a filter over a jsonb value,
  // a walk of the log whose limit the planner does not trust) would compile one for 15-25 ms.
  // The statement timeout is a startup option, so it holds on every connection from its first
  // statement, whoever runs it (docs/operations.md).
  const options = `-c jit=off${statementTimeoutMs > 0 ? ` -c statement_timeout=${Math.floor(statementTimeoutMs)}` : ''}`;
  const pool = new pg.Pool({ connectionString, max, options });
  // An idle client's error (the server restarting) must not crash the process.
  pool.on('error', () => {});
  // Cancels go through a connection of their own: a pool full of runaway statements must not
  // keep the cancel of one of them waiting.
  let cancelPool: pg.Pool | undefined;
  const cancelBackend = (pid: number) => {
    if (!cancelPool) {
      cancelPool = new pg.Pool({ connectionString, max: 1, options: '-c statement_timeout=5000' });
      cancelPool.on('error', () => {});
    }
    return cancelPool.query('select pg_cancel_backend($1)', [pid]).catch(() => {});
  };

  /**
   * A statement for a request (src/db/query-signal.ts): on a connection of its own, cancelled
   * when the request is aborted. The connection goes back to the pool only once the cancel has
   * been answered, so a cancel can only reach this statement, or a backend with nothing to do
   * (PostgreSQL ignores a cancel that arrives while it waits for a command).
   */
  async function run(config: pg.QueryConfig | pg.QueryArrayConfig, signal: AbortSignal | undefined): Promise<pg.QueryResult> {
    if (!signal) return pool.query(config as pg.QueryConfig);
    if (signal.aborted) throw requestGone();
    const client = await pool.connect();
    const stop = cancelOnAbort(client, signal);
    let failure: Error | undefined;
    try {
      return await client.query(config as pg.QueryConfig);
    } catch (err) {
      failure = err as Error;
      throw err;
    } finally {
      await stop();
      // As pool.query does: a connection whose statement failed is not reused (a named statement
      // that failed to prepare would otherwise be taken as prepared by the next one).
      client.release(failure);
    }
  }

  /** Cancels what `client` runs when `signal` aborts; the returned stop waits for a cancel sent. */
  function cancelOnAbort(client: pg.PoolClient, signal: AbortSignal | undefined): () => Promise<unknown> {
    if (!signal) return async () => undefined;
    let cancelling: Promise<unknown> | undefined;
    const onAbort = () => {
      cancelling = cancelBackend((client as unknown as { processID: number }).processID);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    return async () => {
      signal.removeEventListener('abort', onAbort);
      return cancelling;
    };
  }
  let subscriber: ReturnType<typeof createPgListen> | undefined;
  let connecting: Promise<void> | undefined;

  async function ensureSubscriber() {
    if (!subscriber) {
      // Payloads are plain text (not pg-listen's default JSON): a channel's listeners parse their own.
      subscriber = createPgListen({ connectionString }, { retryLimit: Infinity, parse: (payload: string) => payload });
      subscriber.events.on('error', () => {});
      connecting = subscriber.connect();
    }
    await connecting;
    return subscriber;
  }

  return {
    kind: 'postgres',
    async query<T>(text: string, params?: unknown[], name?: string) {
      const result = await run({ text, values: params as unknown[], name }, requestSignal());
      return result.rows as T[];
    },
    async queryRows(text: string, params?: unknown[], name?: string) {
      const result = await run({ text, values: params as unknown[], name, rowMode: 'array' }, requestSignal());
      return result.rows as unknown[][];
    },
    async transaction<T>(fn: (tx: Sql) => Promise<T>) {
      const signal = requestSignal();
      if (signal?.aborted) throw requestGone();
      const client = await pool.connect();
      const stop = cancelOnAbort(client, signal);
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
        await stop();
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        await stop();
        client.release();
      }
    },
    async exec(script: string) {
      await pool.query(script);
    },
    async maintain(statement: string, timeoutMs: number) {
      const client = await pool.connect();
      try {
        await client.query(`set statement_timeout = ${Math.max(0, Math.floor(timeoutMs))}`);
        await client.query(statement);
      } finally {
        // Not given back: its time limit is no longer the pool's.
        client.release(true);
      }
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
      if (cancelPool) await cancelPool.end().catch(() => {});
      await pool.end();
    },
  };
}
