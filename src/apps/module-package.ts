import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { invalid } from '../../aggregates/kernel/errors.js';

/** How many entries a package may hold: a catalog's assets, not a file system. */
export const MAX_PACKAGE_ENTRIES = 2000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What a checked package is: its bytes as sent (a tar, or a gzipped tar), their hash and its files. */
export interface CheckedPackage {
  bytes: Buffer;
  sha256: string;
  gzipped: boolean;
  files: string[];
}

const refused = (message: string, suggestion: string) => invalid('tarball', message, suggestion, 'INVALID_FILE_TYPE');

/** Why an entry's path is refused, or null: relative, no `..`, no backslash, no NUL, no drive letter. */
export function pathProblem(name: string): string | null {
  if (name.length === 0 || name.length > 500) return 'an empty path or one longer than 500 characters';
  if (name.includes('\0')) return 'a NUL character';
  if (name.includes('\\')) return 'a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split('/').some((segment) => segment === '..')) return 'a ".." segment';
  return null;
}

/**
 * Checks a staged module package (spec 4.12): base64 of a tar or a gzipped tar, at most `maxBytes`
 * sent and at most `maxBytes` unpacked (a gzip bomb stops there), at most MAX_PACKAGE_ENTRIES
 * entries, only regular files and directories (no symlinks, hard links, devices or FIFOs: nothing
 * that points out of the package), every path relative, without `..`, named once.
 */
export async function checkPackage(base64: string, maxBytes: number): Promise<CheckedPackage> {
  if (!BASE64.test(base64) || base64.length % 4 !== 0) throw refused('tarball is not base64', 'Send the package as standard base64 (RFC 4648, with padding)');
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0) throw refused('tarball is empty', 'Send a tar (or .tar.gz) of the package');
  if (bytes.length > maxBytes) throw refused(`tarball is larger than ${maxBytes} bytes`, `Send a package of at most ${maxBytes} bytes`);
  const gzipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
  let archive = bytes;
  if (gzipped) {
    try {
      archive = gunzipSync(bytes, { maxOutputLength: maxBytes });
    } catch {
      throw refused(`tarball does not unpack (not gzip, or larger than ${maxBytes} bytes unpacked)`, `Send a tar or a gzipped tar of at most ${maxBytes} bytes unpacked`);
    }
  }
  const files = await entriesOf(archive, maxBytes);
  if (files.length === 0) throw refused('tarball holds no file', 'Send a tar with the package files');
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex'), gzipped, files };
}

function entriesOf(archive: Buffer, maxBytes: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const extract = tar.extract();
    const files: string[] = [];
    const seen = new Set<string>();
    let entries = 0;
    let total = 0;
    let failed = false;
    const fail = (message: string, suggestion: string) => {
      if (failed) return;
      failed = true;
      extract.destroy();
      reject(refused(message, suggestion));
    };
    extract.on('entry', (header, stream, next) => {
      stream.resume();
      if (failed) return;
      const name = header.name.replace(/^\.\//, '').replace(/\/+$/, '');
      const problem = pathProblem(name);
      if (problem) return fail(`the entry ${JSON.stringify(header.name.slice(0, 200))} has ${problem}`, 'Pack paths relative to the package root, without ".." or absolute paths');
      if (header.type !== 'file' && header.type !== 'directory') {
        return fail(`the entry ${JSON.stringify(name)} is a ${header.type ?? 'special file'}: only regular files and directories are taken`, 'Pack the files themselves, not links or devices (tar --dereference)');
      }
      if (++entries > MAX_PACKAGE_ENTRIES) return fail(`the package has more than ${MAX_PACKAGE_ENTRIES} entries`, `Pack at most ${MAX_PACKAGE_ENTRIES} files and directories`);
      if (seen.has(name)) return fail(`the entry ${JSON.stringify(name)} is in the package twice`, 'Pack each path once');
      seen.add(name);
      total += header.size ?? 0;
      if (total > maxBytes) return fail(`the package unpacks to more than ${maxBytes} bytes`, `Send a package of at most ${maxBytes} bytes unpacked`);
      if (header.type === 'file') files.push(name);
      stream.on('end', () => next());
    });
    extract.on('finish', () => {
      if (!failed) resolve(files.sort());
    });
    extract.on('error', () => fail('tarball is not a tar archive', 'Send a tar (ustar / pax) or a gzipped tar'));
    extract.end(archive);
  });
}
