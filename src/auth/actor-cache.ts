import type { SessionActorRow } from './sessions.js';

/**
 * A short-lived cache of session actors (the one query every signed-in request would make).
 *
 * - An entry lives at most `ttlMs` (AUTH_CACHE_MS, default 1 s; 0 turns the cache off) and never
 *   past its session's expiry.
 * - This process forgets every entry as soon as it changes a session (sign-out, company
 *   selection, a password reset) or appends to a stream an actor is made of (users, companies,
 *   memberships, teams): its own changes are seen by its next request.
 * - Another server process sees such a change within `ttlMs` (docs/auth.md).
 *
 * One cache per process: session ids are hashes of random tokens, so apps sharing a process
 * cannot read each other's entries.
 */
const entries = new Map<string, { row: SessionActorRow; until: number }>();
const MAX_ENTRIES = 10_000;
let ttlMs = 1000;

export function configureActorCache(ms: number) {
  ttlMs = ms;
  entries.clear();
}

export function cachedActor(sessionId: string, now: number): SessionActorRow | undefined {
  const hit = entries.get(sessionId);
  if (!hit) return undefined;
  if (now < hit.until && now < Number(hit.row.expires_at)) return hit.row;
  entries.delete(sessionId);
  return undefined;
}

export function rememberActor(sessionId: string, row: SessionActorRow, now: number) {
  if (ttlMs <= 0) return;
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(sessionId, { row, until: now + ttlMs });
}

export function forgetActors() {
  entries.clear();
}

/** Streams whose events can change who an actor is or what it may do. */
const ACTOR_STREAMS = /^(user|company|membership|team)-/;

export const affectsActors = (streamId: string) => ACTOR_STREAMS.test(streamId);
