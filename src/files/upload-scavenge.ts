import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (o: { type: 'minor' | 'major' }) => void;

let every = 16 << 20;
let since = 0;
let gc: Gc | null | undefined;

/**
 * V8's `gc` without starting node with `--expose-gc`: the flag set at run time takes effect in a new
 * context, whose global then holds the function. Null when the flag or the function is refused.
 */
function loadGc(): Gc | null {
  try {
    setFlagsFromString('--expose-gc');
    const fn = runInNewContext('gc') as unknown;
    return typeof fn === 'function' ? (fn as Gc) : null;
  } catch {
    return null;
  }
}

/** Sets how many uploaded bytes go between two scavenges (FILES_SCAVENGE_EVERY_MIB; 0: never). */
export function scavengeUploadsEvery(bytes: number): void {
  every = bytes;
  since = 0;
}

/**
 * Counts uploaded bytes, all uploads together, and every `every` bytes runs a young-generation GC
 * (a scavenge: about a millisecond, only the young objects). Every socket read of an upload is a
 * new Buffer whose memory lies outside V8's heap; the Buffer objects die young, but V8 frees their
 * memory only when a GC finds them dead, and once about 64 MiB of such memory has piled up it
 * starts a full mark-compact of the whole server heap ("external memory pressure"), tens of
 * milliseconds each, several per 200 MB. A scavenge every 16 MiB frees them before that.
 * ADR 0015.
 */
export function countUploadBytes(n: number): void {
  if (every <= 0) return;
  since += n;
  if (since < every) return;
  since = 0;
  if (gc === undefined) gc = loadGc();
  gc?.({ type: 'minor' });
}
