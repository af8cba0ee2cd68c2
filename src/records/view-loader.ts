import { recordViewsBatch, type RecordViewRow } from '../../read-models/record-views.queries.js';
import { batchQueue } from '../db/batch-queue.js';
import type { Db } from '../db/db.js';

interface Wanted {
  tenant: string;
  uuid: string;
  resolve: (row: RecordViewRow | null) => void;
  reject: (error: unknown) => void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Reads records by uuid in batches: gets that arrive while `maxInFlight` reads are running are
 * answered together by one statement (one round trip; each record found by its own tenant and
 * uuid). Without concurrent gets a read runs at once, alone. The rows carry no property
 * definitions: the caller has its objects.
 */
export function recordViewLoader(db: Db, options: { maxInFlight?: number; maxBatch?: number } = {}) {
  const queues = [false, true].map((links) =>
    batchQueue<Wanted>({
      maxInFlight: options.maxInFlight ?? 2,
      maxBatch: options.maxBatch ?? 64,
      key: (w) => `${w.tenant}\u0000${w.uuid}`,
      flush: async (batch) => {
        try {
          const rows = await recordViewsBatch(db, batch, { links });
          batch.forEach((w, i) => w.resolve(rows[i] ?? null));
        } catch (error) {
          for (const w of batch) w.reject(error);
        }
      },
    }),
  );

  /** The tenant's record `uuid` with what its response shows (definitions aside); null when there is none. */
  return function load(tenant: string, uuid: string, opts: { links: boolean }): Promise<RecordViewRow | null> {
    if (!UUID.test(uuid)) return Promise.resolve(null);
    return new Promise((resolve, reject) => queues[opts.links ? 1 : 0]!.submit({ tenant, uuid, resolve, reject }));
  };
}

export type RecordViewLoad = ReturnType<typeof recordViewLoader>;
