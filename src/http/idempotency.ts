import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { Db } from '../db/db.js';
import { sha256 } from '../auth/sha256.js';
import { callerKey } from './caller-key.js';

interface Claim {
  scope: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim?: Claim;
  }
}

interface KeyRow {
  body_hash: string;
  status: number | null;
  response: string | null;
  content_type: string | null;
  created_at: number;
}

const hashBody = (body: unknown) => sha256(JSON.stringify(body ?? null));

function badKey(message: string) {
  return new DomainError('VALIDATION_FAILED', message, [
    { message, type: 'VALIDATION', correctionSuggestion: 'Send an Idempotency-Key of 1 to 255 visible characters, e.g. a UUID' },
  ]);
}

/**
 * `Idempotency-Key` on a POST: the first response (below 500) is kept for `ttlMs` and replayed
 * for the same key and body; the same key with another body is a 422; a key whose first request
 * is still running is a 409.
 */
export function registerIdempotency(app: FastifyInstance, db: Db, ttlMs: number) {
  // preValidation: after the body is parsed, before validation, so refusals are replayed too.
  // Callback hooks: a request without a key (every GET) passes without a promise (ADR 0012).
  app.addHook('preValidation', (request, reply, done) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined) return done();
    claimOrReplay(request, reply, key).then(() => done(), done);
  });

  async function claimOrReplay(request: FastifyRequest, reply: FastifyReply, key: string | string[]) {
    if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) throw badKey('Idempotency-Key is malformed');
    // A sandbox's keys are its own: the same key in production must not replay the sandbox's answer (docs/sandboxes.md).
    const scope = request.headers['x-platform-sandbox-uuid'] === undefined ? callerKey(request) : `${callerKey(request)}:sandbox:${request.actor?.tenant ?? ''}`;
    const bodyHash = hashBody({ url: request.url, body: request.body });
    const now = Date.now();
    await db.query('delete from idempotency_keys where scope = $1 and key = $2 and created_at < $3', [scope, key, now - ttlMs]);
    const claimed = await db.query(
      `insert into idempotency_keys (scope, key, body_hash, created_at) values ($1, $2, $3, $4)
       on conflict do nothing returning key`,
      [scope, key, bodyHash, now],
    );
    if (claimed.length === 1) {
      request.idempotencyClaim = { scope, key };
      return;
    }
    const [row] = await db.query<KeyRow>('select * from idempotency_keys where scope = $1 and key = $2', [scope, key]);
    if (!row) throw new DomainError('CONFLICT', 'Idempotency-Key expired while in use; retry', []);
    if (row.body_hash !== bodyHash) {
      throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key was used with a different request', [
        { message: 'This Idempotency-Key was first used with another body or path', type: 'VALIDATION', correctionSuggestion: 'Use a new Idempotency-Key for a different request' },
      ]);
    }
    if (row.status === null) {
      throw new DomainError('CONFLICT', 'A request with this Idempotency-Key is still in progress', [
        { message: 'The first request with this key has not finished', type: 'GENERAL', correctionSuggestion: 'Wait for the first request to finish, then retry' },
      ]);
    }
    reply.header('idempotent-replayed', 'true').code(row.status).type(row.content_type ?? 'application/json');
    reply.send(row.response);
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const claim = request.idempotencyClaim;
    if (!claim) return done(null, payload);
    request.idempotencyClaim = undefined;
    keep(reply, claim, payload).then((kept) => done(null, kept), done);
  });

  async function keep(reply: FastifyReply, claim: Claim, payload: unknown) {
    if (reply.statusCode >= 500 || (payload !== null && typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
      await db.query('delete from idempotency_keys where scope = $1 and key = $2', [claim.scope, claim.key]);
      return payload;
    }
    await db.query('update idempotency_keys set status = $3, response = $4, content_type = $5 where scope = $1 and key = $2', [
      claim.scope,
      claim.key,
      reply.statusCode,
      payload === null ? '' : String(payload),
      String(reply.getHeader('content-type') ?? 'application/json'),
    ]);
    return payload;
  }
}
