import { randomFillSync } from 'node:crypto';

// Random bytes for 128 ids at a time, as node's randomUUID keeps them: one getrandom call, not
// one an id (the `uuid` package's v7 asks crypto for 16 bytes each time: 6 % of the server's
// CPU under creates, ADR 0018).
const pool = Buffer.alloc(16 * 128);
let used = pool.length;

function randomBytes16(): Buffer {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += 16;
  return Buffer.from(pool.subarray(used - 16, used));
}

/**
 * A maker of time-ordered uuids (RFC 9562 version 7): 48 bits of milliseconds, then a 31-bit
 * sequence that starts at a random value each millisecond and counts up within it (so the ids one
 * maker makes sort in the order it made them, even if the clock steps back), then random bits.
 */
export function timeOrderedUuids(clock: () => number = Date.now): () => string {
  let lastMs = -1;
  let seq = 0;
  return () => {
    const now = clock();
    const b = randomBytes16();
    if (now > lastMs) {
      lastMs = now;
      seq = b.readUInt32BE(6) & 0x7fffffff;
    } else if (++seq > 0x7fffffff) {
      lastMs++;
      seq = b.readUInt32BE(6) & 0x7fffffff;
    }
    b.writeUIntBE(lastMs, 0, 6);
    b[6] = 0x70 | ((seq >>> 27) & 0x0f);
    b[7] = (seq >>> 19) & 0xff;
    b[8] = 0x80 | ((seq >>> 13) & 0x3f);
    b[9] = (seq >>> 5) & 0xff;
    b[10] = ((seq << 3) & 0xf8) | (b[10]! & 0x07);
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
}

/**
 * A new time-ordered uuid, for the ids of rows made at a high rate (records, request ids): their
 * index keys land beside the last ones instead of on a random page of each index (ADR 0018).
 */
export const timeOrderedUuid = timeOrderedUuids();
