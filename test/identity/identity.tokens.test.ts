import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../src/db/db.js';
import { openSession, loadSessionActor, revokeSession } from '../../src/auth/sessions.js';
import { consumeOneTimeToken, issueOneTimeToken, peekOneTimeToken } from '../../src/auth/one-time-tokens.js';
import { makePasswordHasher } from '../../src/auth/passwords.js';
import { hashToken } from '../../src/auth/tokens.js';
import { makeMailer } from '../../src/mail/mailer.js';
import { openTestDb } from '../support/test-db.js';

let db: Db;
const userUuid = randomUUID();
beforeAll(async () => {
  db = await openTestDb();
  await db.query(`insert into users (user_uuid, email, firstname, lastname, created_at, updated_at, revision) values ($1, $2, 'A', 'B', 0, 0, 0)`, [userUuid, `${userUuid}@example.test`]);
});
afterAll(async () => db.close());

describe('sessions', () => {
  it('stores only the hash, and stop at expiry or revocation', async () => {
    const now = 1_700_000_000_000;
    const { token, expiresAt } = await openSession(db, { userUuid, selectedCompany: null, now, ttlMs: 60_000 });
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(expiresAt).toBe(now + 60_000);
    const stored = await db.query<{ token_hash: string }>('select token_hash from sessions where user_uuid = $1', [userUuid]);
    expect(stored.map((r) => r.token_hash)).toEqual([hashToken(token)]);
    expect(JSON.stringify(stored)).not.toContain(token);

    expect(await loadSessionActor(db, hashToken(token), now + 59_999)).toMatchObject({ user_uuid: userUuid });
    expect(await loadSessionActor(db, hashToken(token), now + 60_000)).toBeNull();
    await revokeSession(db, hashToken(token), now + 1);
    expect(await loadSessionActor(db, hashToken(token), now + 2)).toBeNull();
  });
});

describe('one-time tokens', () => {
  it('expire, and are used once', async () => {
    const now = 1_700_000_000_000;
    const token = await issueOneTimeToken(db, { userUuid, purpose: 'reset', now, ttlMs: 1000 });
    expect(await peekOneTimeToken(db, token, 'verify', now)).toBeNull();
    expect(await peekOneTimeToken(db, token, 'reset', now + 999)).toBe(userUuid);
    expect(await peekOneTimeToken(db, token, 'reset', now + 1000)).toBeNull();
    expect(await consumeOneTimeToken(db, token, 'reset', now + 1000)).toBe(false);
    expect(await consumeOneTimeToken(db, token, 'reset', now + 10)).toBe(true);
    expect(await consumeOneTimeToken(db, token, 'reset', now + 20)).toBe(false);
  });
});

describe('passwords', () => {
  it('scrypt hashes carry their parameters and verify only the right password', async () => {
    const hasher = makePasswordHasher({ logN: 10 });
    const hash = await hasher.hash('correct horse');
    expect(hash).toMatch(/^scrypt\$10\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await hasher.hash('correct horse')).not.toBe(hash);
    expect(await hasher.verify('correct horse', hash)).toBe(true);
    expect(await hasher.verify('correct horsE', hash)).toBe(false);
    expect(await hasher.verify('correct horse', 'md5$abc')).toBe(false);
    // A hash made with other parameters still verifies: they are read from the hash.
    expect(await makePasswordHasher({ logN: 11 }).verify('correct horse', hash)).toBe(true);
  });
});

describe('mail without SMTP', () => {
  function capture() {
    const lines: unknown[] = [];
    const log = { info: (obj: unknown) => lines.push(obj), error: (obj: unknown) => lines.push(obj) } as unknown as FastifyBaseLogger;
    return { lines, log };
  }
  it('logs recipient and subject only; keeps an outbox outside production', async () => {
    const { lines, log } = capture();
    const mailer = makeMailer({ from: 'x@y.z', log, keepOutbox: true });
    await mailer.send({ to: 'a@example.test', subject: 'Reset your password', text: 'Reset token: SECRET-TOKEN' });
    expect(JSON.stringify(lines)).not.toContain('SECRET-TOKEN');
    expect(lines).toEqual([expect.objectContaining({ to: 'a@example.test', subject: 'Reset your password' })]);
    expect(mailer.outbox()).toEqual([expect.objectContaining({ to: 'a@example.test', text: 'Reset token: SECRET-TOKEN' })]);
  });
  it('keeps nothing in production', async () => {
    const { log } = capture();
    const mailer = makeMailer({ from: 'x@y.z', log, keepOutbox: false });
    await mailer.send({ to: 'a@example.test', subject: 's', text: 't' });
    expect(mailer.outbox()).toBeNull();
  });
});
