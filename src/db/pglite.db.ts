import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { mkdirSync, writeFileSync, unlinkSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Db, Sql } from './db.js';
import { requestGone, requestSignal } from './query-signal.js';

const parsers = { 20: (v: string) => Number(v) };

/**
 * PGlite in a data folder (or in memory when `dataDir` is undefined). Two processes opening one
 * folder corrupt it, so a lock file holding our pid guards it; a lock left by a dead process is
 * taken over.
 */
export async function createPgliteDb(dataDir?: string): Promise<Db> {
  let lockPath: string | undefined;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    lockPath = join(dataDir, '.platform.lock');
    takeLock(lockPath);
  }
  const db = await PGlite.create(dataDir, { parsers, extensions: { pg_trgm, btree_gin } });
  return wrapPglite(db, lockPath);
}

function takeLock(lockPath: string) {
  if (existsSync(lockPath)) {
    const pid = Number(readFileSync(lockPath, 'utf8'));
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new Error(`data folder is in use by process ${pid} (${lockPath}); stop it or set DATA_DIR to another folder`);
    }
    unlinkSync(lockPath);
  }
  // 'wx' fails when another process created the lock between our check and now.
  writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * PGlite runs one statement at a time inside this process and has no timer to interrupt it:
 * `statement_timeout` is accepted but never fires, and a running statement cannot be cancelled.
 * What can be done is done: a statement of a request whose client has gone is not started.
 */
function refuseIfGone() {
  if (requestSignal()?.aborted) throw requestGone();
}

export function wrapPglite(db: PGlite, lockPath?: string): Db {
  return {
    kind: 'pglite',
    async query<T>(text: string, params?: unknown[]) {
      refuseIfGone();
      return (await db.query<T>(text, params as unknown[])).rows;
    },
    async queryRows(text: string, params?: unknown[]) {
      refuseIfGone();
      return (await db.query<unknown[]>(text, params as unknown[], { rowMode: 'array' })).rows;
    },
    async transaction<T>(fn: (tx: Sql) => Promise<T>) {
      refuseIfGone();
      return db.transaction(async (t) => {
        const tx: Sql = { query: async <R>(text: string, params?: unknown[]) => (await t.query<R>(text, params as unknown[])).rows };
        return fn(tx);
      });
    },
    async exec(script: string) {
      await db.exec(script);
    },
    // One connection, no time limits (the process is the database's only user).
    async maintain(statement: string) {
      refuseIfGone();
      await db.exec(statement);
    },
    async listen(channel, onMessage) {
      const unlisten = await db.listen(channel, onMessage);
      return async () => unlisten();
    },
    async close() {
      if (!db.closed) await db.close();
      if (lockPath && existsSync(lockPath)) unlinkSync(lockPath);
    },
  };
}
