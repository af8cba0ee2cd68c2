import { shortLived } from '../cache/short-lived.js';
import { broadcastStale } from '../cache/cache-bus.js';
import type { CompanyRole } from '../../aggregates/membership/roles.js';

/** A session actor as `loadSessionActor` (sessions.ts) reads it: the row this cache keeps. */
export interface SessionActorRow {
  user_uuid: string;
  email: string;
  email_verified: boolean;
  selected_company: string | null;
  company_exists: boolean;
  role: CompanyRole | null;
  scopes: string[] | null;
  team_scopes: string[];
  expires_at: number;
  /** Set for an app's access token (src/auth/app-tokens.ts): the app acting. */
  app_uuid?: string | null;
}

/**
 * A short-lived cache of session actors (the one query every signed-in request would make).
 *
 * - An entry lives at most AUTH_CACHE_MS (default 1 s; 0 turns the cache off) and never past
 *   its session's expiry.
 * - This process forgets every entry as soon as it changes a session (sign-out, company
 *   selection, a password reset) or appends to a stream an actor is made of (users, companies,
 *   memberships, teams): its own changes are seen by its next request.
 * - Another server process on the same PostgreSQL is told at once (src/cache/cache-bus.ts,
 *   LISTEN/NOTIFY) and forgets too; AUTH_CACHE_MS bounds it when a notification is missed
 *   (docs/auth.md, docs/operations.md).
 *
 * One cache per process: session ids are hashes of random tokens, so apps sharing a process
 * cannot read each other's entries.
 */
const actors = shortLived<SessionActorRow>({ ttlMs: 1000 });

export const configureActorCache = (ms: number) => actors.configure(ms);

export function cachedActor(sessionId: string, now: number): SessionActorRow | undefined {
  const row = actors.get('', sessionId, now);
  return row && now < Number(row.expires_at) ? row : undefined;
}

export const rememberActor = (sessionId: string, row: SessionActorRow, now: number) => actors.set('', sessionId, row, now);

/** Forgets every actor here and tells the other processes to (resolves once they are told). */
export function forgetActors(): Promise<void> {
  actors.forget();
  return broadcastStale(STALE_ACTORS);
}

/** What another process's forgetActors sends. */
export const STALE_ACTORS = 'actors';
export const forgetActorsHere = () => actors.forget();

/** Streams whose events can change who an actor is or what it may do. */
const ACTOR_STREAMS = /^(user|company|membership|team)-/;

export const affectsActors = (streamId: string) => ACTOR_STREAMS.test(streamId);
