import type { Readable } from 'node:stream';

/** How a signed download answers: the type and disposition the server chose, never the client's. */
export interface DownloadHeaders {
  contentType: string;
  /** A complete Content-Disposition value (`attachment; filename=...` or `inline; ...`). */
  disposition: string;
}

/**
 * Object storage: the bytes of files, by key. Keys are made by the server (`files/<tenant>/<uuid>`),
 * never from a client's file name. One contract suite (test/files/storage.contract.ts) runs on
 * every adapter.
 */
export interface ObjectStorage {
  readonly kind: 'local' | 's3';
  /**
   * Streams `body` to `key`. The object becomes visible only whole: when the stream fails (client
   * gone, a size limit) the promise rejects and nothing is left under the key or beside it.
   */
  put(key: string, body: Readable, contentType: string): Promise<void>;
  /** The object's bytes as a stream, or null when there is no such object. */
  get(key: string): Promise<Readable | null>;
  /** Whether an object is stored under `key`. */
  exists(key: string): Promise<boolean>;
  /** Removes the object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** A URL that downloads the object with these headers until `ttlSeconds` from `now` (ms) have passed. */
  signedGetUrl(key: string, headers: DownloadHeaders, o: { ttlSeconds: number; now: number }): Promise<string>;
  /**
   * Optional (local disk; ADR 0017): puts an object whose bytes the caller writes itself, into the
   * open descriptor of a new, empty file (positional writes from 0, from any thread of the process).
   * `write` resolves once every byte is written and `fsync`ed; the file is then closed and becomes
   * the object. When `write` rejects (only once nothing uses the descriptor any more) the file is
   * closed and removed, and this rejects with its error: nothing is left under the key or beside it.
   */
  putWritten?(key: string, write: (fd: number) => Promise<void>): Promise<void>;
}

/** Keys are ours: lowercase letters, digits, dashes, dots and slashes, no `..`, no leading slash. */
export const KEY = /^(?!.*\.\.)[a-z0-9][a-z0-9./-]{0,500}$/;

export function assertKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`object key ${JSON.stringify(key)} is not one the server makes`);
}
