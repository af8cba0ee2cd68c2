import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { Mailer } from '../mail/mailer.js';
import { authRoutes } from './auth.routes.js';
import { makeAuthService } from './auth.service.js';
import { makeLoginThrottle } from './login-throttle.js';
import { makePasswordHasher } from './passwords.js';

/** Accounts (issue 3): sign-up, sign-in, sessions, password reset and e-mail verification under /api/v2/auth. */
export async function registerAccounts(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore; mailer: Mailer }) {
  const { config, db, store, mailer } = deps;
  const hasher = makePasswordHasher({ logN: config.PASSWORD_SCRYPT_LOG_N });
  const throttle = makeLoginThrottle(db, {
    maxPerAccount: config.LOGIN_MAX_FAILURES,
    maxPerAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
    windowMs: config.LOGIN_THROTTLE_WINDOW_MS,
  });
  const auth = makeAuthService({ db, store, config, hasher, mailer, throttle, log: app.log });
  await app.register(authRoutes({ auth, db }), { prefix: '/api/v2/auth' });
}
