import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { lastRuntimeLogSeq, runtimeLogsAfter, type RuntimeLogRow } from '../../../read-models/app-functions.queries.js';
import type { Db } from '../../db/db.js';

let active = 0;
/** Log streams of this process whose timers and reads still run (a test checks it drops back). */
export const activeRuntimeLogStreams = () => active;

export const logLine = (r: RuntimeLogRow) => ({
  seq: Number(r.seq), invocationUuid: r.invocation_uuid, functionName: r.function_name, jobUuid: r.job_uuid, level: r.level, message: r.message, at: Number(r.at),
});

/**
 * The runtime log streams (spec 4.17, 8): Server-Sent Events of an app's new log lines in the
 * company, read every `pollMs` (about 2.5 s), ended after `maxMs` (5 minutes), when the client
 * goes, or when the server stops. Every timer and listener is released in `finish`.
 */
export function makeRuntimeLogStreams(deps: { db: Db; pollMs: number; maxMs: number }) {
  const open = new Set<(reason?: string) => void>();

  async function stream(reply: FastifyReply, tenant: string, appUuid: string, log: FastifyBaseLogger) {
    let after = await lastRuntimeLogSeq(deps.db, tenant, appUuid);
    reply.hijack();
    const res = reply.raw;
    if (res.destroyed || !res.socket || res.socket.destroyed) return;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no', 'x-request-id': reply.request.id });
    active++;
    let ended = false;
    let poll: NodeJS.Timeout | undefined;
    const finish = () => {
      if (ended) return;
      ended = true;
      active--;
      clearTimeout(poll);
      clearTimeout(lifetime);
      open.delete(end);
      res.off('close', finish);
      res.off('error', finish);
    };
    const end = (reason = 'max-duration') => {
      if (ended) return;
      res.end(`event: end\ndata: ${JSON.stringify({ reason, resumeAfter: after })}\n\n`);
      finish();
    };
    res.once('close', finish);
    res.on('error', finish);
    const lifetime = setTimeout(() => end('max-duration'), deps.maxMs);
    open.add(end);
    const read = async () => {
      poll = undefined;
      try {
        const rows = await runtimeLogsAfter(deps.db, tenant, appUuid, after, 500);
        if (ended) return;
        for (const r of rows) {
          after = Number(r.seq);
          res.write(`id: ${after}\nevent: log\ndata: ${JSON.stringify(logLine(r))}\n\n`);
        }
        if (rows.length === 0) res.write(': poll\n\n');
        poll = setTimeout(() => void read(), rows.length === 500 ? 0 : deps.pollMs);
      } catch (err) {
        if (ended) return;
        log.warn({ err }, 'runtime log stream: reading failed');
        end('error');
      }
    };
    res.write('retry: 2500\n: connected\n\n');
    void read();
  }

  return { stream, endAll: () => [...open].forEach((end) => end('shutdown')) };
}
export type RuntimeLogStreams = ReturnType<typeof makeRuntimeLogStreams>;
