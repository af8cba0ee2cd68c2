import { randomBytes } from 'node:crypto';
import { sha256 as hash } from '../auth/sha256.js';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { appBarOf, appBarsAt } from '../../read-models/apps.queries.js';
import { companyOf } from '../../read-models/companies.queries.js';
import { userByUuid } from '../../read-models/users.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { RuntimeService } from './runtime.service.js';


/** What the embedding page tells the app about where it is shown. */
export interface BarContext {
  recordUuid?: string | undefined;
  viewUuid?: string | undefined;
  filter?: unknown;
}

const refused = () =>
  new DomainError('UNAUTHENTICATED', 'Invalid or expired iframe token', [
    { message: 'The iframe token is unknown, expired or used already', type: 'GENERAL', correctionSuggestion: 'Ask the platform page for a new token (POST /app-bars/{appBarUuid}/iframe-session); a token validates once within 60 s' },
  ]);

/**
 * App bars (spec 4.15). An iframe session token is 256 random bits, kept only as its SHA-256
 * hash, valid `ttlMs` and validated once: the row is claimed in the statement that reads it.
 */
export function makeAppBarsService(deps: { db: Db; runtime: RuntimeService; ttlMs: number }) {
  const { db, runtime } = deps;

  async function bar(tenant: string, appBarUuid: string) {
    const found = await appBarOf(db, tenant, appBarUuid);
    if (!found) throw notFound('App bar', appBarUuid);
    return found;
  }

  return {
    list: (tenant: string, location: string | null) => appBarsAt(db, tenant, location),

    async issue(ctx: CommandContext, appBarUuid: string, context: BarContext) {
      const { app, bar: found } = await bar(ctx.tenant, appBarUuid);
      const token = randomBytes(32).toString('base64url');
      const expiresAt = ctx.now + deps.ttlMs;
      await db.query(
        'insert into app_iframe_sessions (token_hash, tenant, app_uuid, app_bar_uuid, user_uuid, context, expires_at) values ($1, $2, $3, $4, $5, $6::jsonb, $7)',
        [hash(token), ctx.tenant, app.app_uuid, found.uuid, ctx.userUuid, JSON.stringify(context), expiresAt],
      );
      // Expired sessions go when new ones come: the table stays the size of a minute's sessions.
      await db.query('delete from app_iframe_sessions where expires_at < $1', [ctx.now - deps.ttlMs]);
      return { token, expiresAt, url: found.url };
    },

    /** Claims the token once; answers only what the app may know (no e-mail, no token, no secret). */
    async validate(token: string, now: number) {
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw refused();
      const [row] = await db.query<{ tenant: string; app_uuid: string; app_bar_uuid: string; user_uuid: string; context: BarContext }>(
        'update app_iframe_sessions set used_at = $2 where token_hash = $1 and used_at is null and expires_at > $2 returning tenant, app_uuid, app_bar_uuid, user_uuid, context',
        [hash(token), now],
      );
      if (!row) throw refused();
      const [user, company] = await Promise.all([userByUuid(db, row.user_uuid), companyOf(db, row.tenant)]);
      return {
        appUuid: row.app_uuid,
        appBarUuid: row.app_bar_uuid,
        user: { uuid: row.user_uuid, firstname: user?.firstname ?? '', lastname: user?.lastname ?? '' },
        company: { uuid: row.tenant, name: company?.name ?? '' },
        recordUuid: row.context.recordUuid ?? null,
        viewUuid: row.context.viewUuid ?? null,
        filter: row.context.filter ?? null,
      };
    },

    /** Fires the app bar's webhook at the app, signed like every app call. */
    async trigger(ctx: CommandContext, appBarUuid: string, input: BarContext & { settings: Record<string, unknown> }) {
      const { app, bar: found } = await bar(ctx.tenant, appBarUuid);
      const { installation, secrets } = await runtime.outbound(ctx.tenant, app.app_uuid);
      return runtime.notifyApp(app, installation, secrets, {
        type: 'appbar.trigger',
        appBarUuid: found.uuid,
        userUuid: ctx.userUuid,
        settings: { ...installation.settings, ...input.settings },
        context: { recordUuid: input.recordUuid ?? null, viewUuid: input.viewUuid ?? null, filter: input.filter ?? null },
      });
    },
  };
}
export type AppBarsService = ReturnType<typeof makeAppBarsService>;
