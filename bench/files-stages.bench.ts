/**
 * `npm run bench:files-stages`: where an upload's time goes, stage by stage, in one run. Each stage
 * moves the same BENCH_FILE_MB (default 100) MB and is given as wall time, process CPU time (all
 * threads) and both as a ratio of the bare stage (reading the file from the page cache), so the
 * figures compare on a loaded machine. Not a test.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, createWriteStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { Busboy } from '@fastify/busboy';
import { sniffType, UploadInspector } from '../src/files/inspect-upload.js';
import { OffThreadHash } from '../src/files/off-thread-hash.js';
import { createLocalStorage } from '../src/files/storage/local.storage.js';

const MB = Number(process.env.BENCH_FILE_MB ?? 100);
const BYTES = MB * 1024 * 1024;
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);

let dir = '';
let source = '';

function writeSource() {
  const fd = openSync(source, 'w');
  const chunk = randomBytes(1 << 20);
  for (let i = 0; i < MB; i++) {
    chunk[0] = i & 255;
    writeSync(fd, chunk);
  }
  closeSync(fd);
}

const read = (hwm = 1 << 20) => createReadStream(source, { highWaterMark: hwm });
const sinkStream = () => new Writable({ highWaterMark: 4 << 20, write: (_c, _e, cb) => cb() });

interface Stage { name: string; wall: number; cpu: number; note?: string }

async function timed(name: string, run: () => Promise<unknown>, note?: string): Promise<Stage> {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const extra = await run();
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const used = process.cpuUsage(cpu0);
  return { name, wall, cpu: (used.user + used.system) / 1e6 + (typeof extra === 'number' ? extra : 0), note };
}

const boundary = 'stagesboundary0123456789';
const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
async function* multipartBody(hwm = 1 << 20) {
  yield head;
  for await (const c of read(hwm)) yield c as Buffer;
  yield tail;
}

function startSink(hwm = 0): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(import.meta.url), ['sink', String(hwm)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve) => child.once('message', (port) => resolve({ child, port: port as number })));
}

/** Streams the file to the sink; resolves with the sink's CPU seconds (another process). */
function postTo(port: number, body: () => Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-length': String(BYTES) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        const got = JSON.parse(text) as { n: number; cpu: number };
        if (got.n !== BYTES) reject(new Error(`sink got ${got.n}`));
        else resolve(got.cpu);
      });
    });
    req.on('error', reject);
    void pipeline(body(), req).catch(reject);
  });
}

async function main() {
  dir = mkdtempSync(join(tmpdir(), 'bench-stages-'));
  source = join(dir, 'source.bin');
  writeSource();
  for await (const _ of read()); // page cache warm
  const stages: Stage[] = [];
  // Each stage REPEAT times, the best of each kept: on a loaded machine the minimum is the stage's own cost.
  const add = async (name: string, run: () => Promise<unknown>, note?: string) => {
    const best: Stage = await timed(name, run, note);
    for (let i = 1; i < REPEAT; i++) {
      const s = await timed(name, run, note);
      best.wall = Math.min(best.wall, s.wall);
      best.cpu = Math.min(best.cpu, s.cpu);
    }
    stages.push(best);
    process.stderr.write(`${name}: ${best.wall.toFixed(3)} s\n`);
  };

  await add('read the file (bare)', () => pipeline(read(), sinkStream()));
  await add('read, 64 KiB chunks', () => pipeline(read(1 << 16), sinkStream()));
  await add('multipart body generation (client)', () => pipeline(Readable.from(multipartBody()), sinkStream()));
  await add('busboy parse (1 MiB hwm)', async () => {
    const bb = new Busboy({ headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, highWaterMark: 1 << 20, fileHwm: 1 << 20 });
    const done = new Promise<void>((resolve, reject) => {
      bb.on('file', (_f: string, file: Readable) => file.pipe(sinkStream()).on('finish', resolve));
      bb.on('error', reject);
    });
    await pipeline(Readable.from(multipartBody(1 << 16)), bb);
    await done;
  }, 'fed 64 KiB chunks, as a socket gives');
  await add('SHA-256 inline', async () => {
    const h = createHash('sha256');
    for await (const c of read()) h.update(c as Buffer);
    h.digest('hex');
  });
  await add('SHA-256 inline, 64 KiB chunks', async () => {
    const h = createHash('sha256');
    for await (const c of read(1 << 16)) h.update(c as Buffer);
    h.digest('hex');
  });
  await add('SHA-256 worker (OffThreadHash)', async () => {
    const h = new OffThreadHash();
    for await (const c of read(1 << 16)) if (!h.update(c as Buffer)) await h.drained();
    await h.digest();
  }, 'fed 64 KiB chunks; CPU counts the worker too');
  const head4100 = randomBytes(4100);
  await sniffType(head4100); // file-type's import, once per process
  await add('file-type sniff (x1)', () => sniffType(head4100), 'once per upload, not per byte');
  await add('write to disk (1 MiB hwm)', () => pipeline(read(1 << 16), createWriteStream(join(dir, 'w1.bin'), { highWaterMark: 1 << 20 })), 'fed 64 KiB chunks');
  let n = 0;
  await add('write to disk + fsync', async () => {
    const path = join(dir, `w${++n}.bin`);
    await pipeline(read(1 << 16), createWriteStream(path, { highWaterMark: 1 << 20 }));
    const f = await open(path, 'r+');
    await f.sync();
    await f.close();
    rmSync(path);
  }, 'a new file each time, fed 64 KiB chunks');
  const storage = createLocalStorage({ root: join(dir, 'store'), publicBaseUrl: 'http://x' });
  for (const hashOn of ['worker', 'main'] as const) {
    await add(`inspector + local put (hash on ${hashOn} thread, sniff, write, fsync)`, async () => {
      const ins = new UploadInspector({ maxBytes: BYTES + 1, scopeOfLimit: 'file', accepted: [], hashOn });
      const src = read(1 << 16);
      src.pipe(ins);
      await storage.put('files/a/b', ins, 'application/octet-stream');
      await ins.digest();
    }, 'fed 64 KiB chunks');
  }

  for (const hwm of [0, 1 << 20]) {
    const { child, port } = await startSink(hwm);
    let sinkCpu = 0;
    await add(`HTTP to a sink in another process${hwm ? ' (server highWaterMark 1 MiB)' : ''}`, async () => (sinkCpu = await postTo(port, () => read())), 'CPU: both processes');
    stages[stages.length - 1]!.note += `; sink (last) ${sinkCpu.toFixed(3)} s`;
    child.kill();
  }
  {
    // The old bench's reference: client and sink in one process (one thread).
    const sink = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(JSON.stringify({ n: BYTES, cpu: 0 })));
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    await add('HTTP to a sink in this process (old reference)', () => postTo((sink.address() as { port: number }).port, () => read()));
    sink.close();
  }

  const bare = stages[0]!;
  process.stdout.write(`\n${MB} MB per stage; ratios against "${bare.name}" in the same run\n\n`);
  process.stdout.write('| stage | wall s | MB/s | wall / bare | CPU s | CPU / bare | note |\n|---|---:|---:|---:|---:|---:|---|\n');
  for (const s of stages) {
    process.stdout.write(`| ${s.name} | ${s.wall.toFixed(3)} | ${(MB / s.wall).toFixed(0)} | ${(s.wall / bare.wall).toFixed(1)} | ${s.cpu.toFixed(3)} | ${(s.cpu / bare.cpu).toFixed(1)} | ${s.note ?? ''} |\n`);
  }
  rmSync(dir, { recursive: true, force: true });
}

/** The sink server, when this file runs as the child: counts bytes, answers the count. */
if (process.argv[2] === 'sink') {
  const hwm = Number(process.argv[3] ?? 0);
  const server = http.createServer(hwm ? { highWaterMark: hwm } : {}, (req, res) => {
    const cpu = process.cpuUsage();
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => {
      const used = process.cpuUsage(cpu);
      res.end(JSON.stringify({ n, cpu: (used.user + used.system) / 1e6 }));
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as { port: number }).port));
} else {
  void main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
}

