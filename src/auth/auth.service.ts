import { randomUUID } from 'node:crypto';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { PLATFORM_TENANT, userStream } from '../../aggregates/user/user.events.js';
import { userDecider, type UserCommand } from '../../aggregates/user/user.decider.js';
import { companiesOfUser, userByEmail, userByUuid } from '../../read-models/users.queries.js';
import { companyOf } from '../../read-models/companies.queries.js';
import { userRecordView } from '../../read-models/record-views.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Config } from '../config.js';
import type { Db, Sql } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import { resetMail, verifyMail } from '../mail/auth.mails.js';
import type { Mail, Mailer } from '../mail/mailer.js';
import type { Actor } from './actor.js';
import type { UserObject } from './auth.schemas.js';
import { toProfileRecord } from './profile-record.js';
import { resolveActor } from './authorize.js';
import { passwordHashOf, setPasswordHash } from './credentials.js';
import type { LoginThrottle } from './login-throttle.js';
import { consumeOneTimeToken, issueOneTimeToken, peekOneTimeToken, type TokenPurpose } from './one-time-tokens.js';
import type { PasswordHasher } from './passwords.js';
import { openSession, revokeUserSessions, selectSessionCompany } from './sessions.js';
import { hashToken } from './tokens.js';

export interface AuthDeps {
  db: Db;
  store: EventStore;
  config: Config;
  hasher: PasswordHasher;
  mailer: Mailer;
  throttle: LoginThrottle;
  log: { error(obj: object, msg: string): void };
}

export interface Session {
  token: string;
  expiresAt: number;
  user: UserObject;
}

const emailTaken = () =>
  new DomainError('CONFLICT', 'E-mail address already registered', [
    { message: 'An account with this e-mail address exists', type: 'INVALID_EMAIL', correctionSuggestion: 'Log in, or reset the password with POST /api/v2/auth/password/forgot' },
  ]);

const badCredentials = () =>
  new DomainError('UNAUTHENTICATED', 'Invalid e-mail or password', [
    { message: 'The e-mail address or the password is wrong', type: 'GENERAL', correctionSuggestion: 'Check both, or reset the password with POST /api/v2/auth/password/forgot' },
  ]);

const badToken = (purpose: TokenPurpose) =>
  new DomainError('VALIDATION_FAILED', `Invalid or expired ${purpose === 'reset' ? 'reset' : 'verification'} token`, [
    {
      message: 'The token is unknown, used already or expired',
      type: 'INVALID_VALUE',
      correctionSuggestion: purpose === 'reset' ? 'Ask for a new one with POST /api/v2/auth/password/forgot' : 'Ask for a new one with POST /api/v2/auth/verify/resend',
    },
  ]);

const initials = (first: string, last: string) => `${first.charAt(0)}${last.charAt(0)}`.toUpperCase();

export function makeAuthService(deps: AuthDeps) {
  const { db, store, config } = deps;
  const platformContext = (userUuid: string, requestId: string): CommandContext => ({ tenant: PLATFORM_TENANT, userUuid, requestId, now: Date.now() });
  const onUser = (userUuid: string, requestId: string, command: UserCommand, inTransaction?: (tx: Sql) => Promise<void>) =>
    handleCommand({ store, decider: userDecider, streamId: userStream(userUuid), command, context: platformContext(userUuid, requestId), inTransaction });

  /** Mail goes out in the background: a slow or failing SMTP server neither delays nor reveals anything. */
  function post(mail: Mail) {
    deps.mailer.send(mail).catch((err: unknown) => deps.log.error({ err: { message: (err as Error).message }, subject: mail.subject }, 'mail failed'));
  }

  async function sendVerification(userUuid: string, email: string) {
    const token = await issueOneTimeToken(db, { userUuid, purpose: 'verify', now: Date.now(), ttlMs: config.VERIFY_TOKEN_TTL_MS });
    post(verifyMail(email, config.APP_URL, token));
  }

  async function profile(actor: Actor): Promise<UserObject> {
    const [user, companies, own] = await Promise.all([
      userByUuid(db, actor.userUuid),
      companiesOfUser(db, actor.userUuid),
      actor.tenant ? userRecordView(db, actor.tenant, actor.userUuid) : null,
    ]);
    if (!user) throw notFound('User', actor.userUuid);
    const self = {
      uuid: user.user_uuid,
      email: user.email,
      firstname: user.firstname,
      lastname: user.lastname,
      initials: initials(user.firstname, user.lastname),
      scopes: actor.scopes,
      filters: {},
      role: actor.role,
      record: null,
    };
    return {
      ...self,
      record: own ? toProfileRecord(own, self) : null,
      emailVerified: user.email_verified,
      companies: companies.map((c) => ({ uuid: c.company_uuid, name: c.name, subdomain: c.subdomain, role: c.role, scopes: c.scopes })),
      selectedCompany: actor.tenant,
    };
  }

  async function sessionFor(userUuid: string, selectedCompany: string | null): Promise<Session> {
    const now = Date.now();
    const issued = await openSession(db, { userUuid, selectedCompany, now, ttlMs: config.SESSION_TTL_MS });
    const actor = await resolveActor(db, hashToken(issued.token), config.SUPER_ADMIN_EMAILS, now);
    return { ...issued, user: await profile(actor!) };
  }

  /** The company a new session starts in: the last one selected while still a member, else the oldest membership. */
  async function startingCompany(userUuid: string, last: string | null) {
    const companies = await companiesOfUser(db, userUuid);
    return companies.find((c) => c.company_uuid === last)?.company_uuid ?? companies[0]?.company_uuid ?? null;
  }

  return {
    profile,

    async register(body: { email: string; password: string; firstname: string; lastname: string }, requestId: string): Promise<Session> {
      const email = body.email.trim().toLowerCase();
      if (await userByEmail(db, email)) throw emailTaken();
      const userUuid = randomUUID();
      const passwordHash = await deps.hasher.hash(body.password);
      await mapUniqueViolations(
        () => onUser(userUuid, requestId, { type: 'RegisterUser', userUuid, email, firstname: body.firstname, lastname: body.lastname }, (tx) => setPasswordHash(tx, userUuid, passwordHash, Date.now())),
        {
          users_email_unique: () => {
            throw emailTaken();
          },
        },
      );
      await sendVerification(userUuid, email);
      return sessionFor(userUuid, null);
    },

    async login(body: { email: string; password: string }, address: string): Promise<Session> {
      const now = Date.now();
      await deps.throttle.check(body.email, address, now);
      const user = await userByEmail(db, body.email);
      const stored = user ? await passwordHashOf(db, user.user_uuid) : null;
      const ok = stored ? await deps.hasher.verify(body.password, stored) : (await deps.hasher.burn(body.password), false);
      if (!ok || !user) {
        await deps.throttle.fail(body.email, address, now);
        throw badCredentials();
      }
      await deps.throttle.succeed(body.email);
      return sessionFor(user.user_uuid, await startingCompany(user.user_uuid, user.last_company_uuid));
    },

    async selectCompany(actor: Actor, companyUuid: string, requestId: string): Promise<UserObject> {
      const company = await companyOf(db, companyUuid);
      const member = company && (actor.superAdmin || (await companiesOfUser(db, actor.userUuid)).some((c) => c.company_uuid === companyUuid));
      if (!member) throw notFound('Company', companyUuid);
      await selectSessionCompany(db, actor.sessionId, companyUuid);
      await onUser(actor.userUuid, requestId, { type: 'SelectCompany', companyUuid });
      const fresh = await resolveActor(db, actor.sessionId, config.SUPER_ADMIN_EMAILS, Date.now());
      return profile(fresh!);
    },

    /** Same answer whether or not the account exists. */
    async forgotPassword(email: string) {
      const user = await userByEmail(db, email);
      if (!user) return;
      const token = await issueOneTimeToken(db, { userUuid: user.user_uuid, purpose: 'reset', now: Date.now(), ttlMs: config.RESET_TOKEN_TTL_MS });
      post(resetMail(user.email, config.APP_URL, token, Math.round(config.RESET_TOKEN_TTL_MS / 60_000)));
    },

    /** Uses the token up, sets the password and ends every session of the user, in one transaction. */
    async resetPassword(token: string, password: string, requestId: string) {
      const userUuid = await peekOneTimeToken(db, token, 'reset', Date.now());
      if (!userUuid) throw badToken('reset');
      const passwordHash = await deps.hasher.hash(password);
      await onUser(userUuid, requestId, { type: 'ChangeUserPassword', reason: 'reset' }, async (tx) => {
        const now = Date.now();
        if (!(await consumeOneTimeToken(tx, token, 'reset', now))) throw badToken('reset');
        await setPasswordHash(tx, userUuid, passwordHash, now);
        await revokeUserSessions(tx, userUuid, now);
      });
      const user = await userByUuid(db, userUuid);
      if (user) await deps.throttle.succeed(user.email);
    },

    async verifyEmail(token: string, requestId: string) {
      const userUuid = await peekOneTimeToken(db, token, 'verify', Date.now());
      if (!userUuid) throw badToken('verify');
      const consume = async (tx: Sql) => {
        if (!(await consumeOneTimeToken(tx, token, 'verify', Date.now()))) throw badToken('verify');
      };
      const { events } = await onUser(userUuid, requestId, { type: 'VerifyUserEmail' }, consume);
      if (events.length === 0) await consume(db);
    },

    async resendVerification(actor: Actor) {
      if (actor.emailVerified) {
        throw new DomainError('STATE_NOT_ALLOWED', 'E-mail address already verified', [
          { message: 'This account has confirmed its e-mail address already', type: 'GENERAL', correctionSuggestion: 'Nothing to do' },
        ]);
      }
      await sendVerification(actor.userUuid, actor.email);
    },
  };
}
export type AuthService = ReturnType<typeof makeAuthService>;
