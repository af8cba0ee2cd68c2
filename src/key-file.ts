import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A key of 32 random bytes kept in `file` (base64url, mode 0600): read when it exists, otherwise
 * written once. `wx` (O_EXCL): when two processes start at once on one data folder, one writes
 * and the other reads the winner's key, so they agree. Synchronous: it runs once per process, on
 * a 43-byte file.
 */
export function keyFile(file: string): Buffer {
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  chmodSync(file, 0o600);
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
}
