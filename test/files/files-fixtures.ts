import { createHash, randomBytes } from 'node:crypto';
import type { TestTenant } from '../support/actors.js';

const chunk = (type: string, body: Buffer) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, Buffer.from(type, 'latin1'), body, Buffer.alloc(4)]);
};

/** A PNG signature, an IHDR and one IDAT chunk of random bytes: file-type knows it as image/png whatever its name. */
export function pngBytes(size = 2048): Buffer {
  const ihdr = chunk('IHDR', Buffer.from('00000001000000010806000000', 'hex'));
  const head = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), ihdr]);
  return Buffer.concat([head, chunk('IDAT', randomBytes(Math.max(0, size - head.length - 12)))]);
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export interface Part {
  name: string;
  bytes: Buffer;
  /** What the client claims; the server must ignore it. */
  type?: string;
}

/** Uploads over real HTTP as multipart/form-data (undici's FormData), as a browser would. */
export async function upload(base: string, who: TestTenant, path: string, parts: Part[], headers: Record<string, string> = {}) {
  const form = new FormData();
  for (const p of parts) form.append('file', new Blob([new Uint8Array(p.bytes)], { type: p.type ?? 'application/octet-stream' }), p.name);
  const res = await fetch(base + path, { method: 'POST', headers: { ...who.headers, ...headers }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export async function get(url: string) {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/**
 * Uploads one file as a raw body (Content-Type application/octet-stream, the name in ?name=).
 * `chunked`: no Content-Length, the bytes streamed in pieces, so only the server's count can stop it.
 */
export async function uploadRaw(base: string, who: TestTenant, path: string, bytes: Buffer, o: { chunked?: boolean; type?: string } = {}) {
  const headers = { ...who.headers, 'content-type': o.type ?? 'application/octet-stream' };
  const body = o.chunked
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 16 * 1024) controller.enqueue(new Uint8Array(bytes.subarray(at, at + 16 * 1024)));
          controller.close();
        },
      })
    : new Uint8Array(bytes);
  const res = await fetch(base + path, { method: 'POST', headers, body, ...(o.chunked ? { duplex: 'half' } : {}) } as RequestInit);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
