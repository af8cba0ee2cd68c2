import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import type { EventStore } from './event-store/port.js';
import { authRoutes } from './auth/auth.routes.js';
import { makeAuthService } from './auth/auth.service.js';
import { makeLoginThrottle } from './auth/login-throttle.js';
import { makePasswordHasher } from './auth/passwords.js';
import { makeMailer, type Mailer } from './mail/mailer.js';
import { companiesRoutes } from './companies/companies.routes.js';
import { makeCompaniesService } from './companies/companies.service.js';
import { publicSettingsRoutes } from './companies/public-settings.routes.js';
import { membersRoutes } from './members/members.routes.js';
import { makeMembersService } from './members/members.service.js';
import { teamsRoutes } from './teams/teams.routes.js';
import { makeTeamsService } from './teams/teams.service.js';
import { partnersRoutes } from './partners/partners.routes.js';

/** Identity and tenancy (issue 3): auth, companies, members, teams, partners. Returns the mailer for other areas. */
export async function registerIdentity(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore }): Promise<{ mailer: Mailer }> {
  const { config, db, store } = deps;
  const mailer = makeMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, log: app.log, keepOutbox: config.NODE_ENV !== 'production' });
  app.addHook('onClose', async () => mailer.close());
  const hasher = makePasswordHasher({ logN: config.PASSWORD_SCRYPT_LOG_N });
  const throttle = makeLoginThrottle(db, {
    maxPerAccount: config.LOGIN_MAX_FAILURES,
    maxPerAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
    windowMs: config.LOGIN_THROTTLE_WINDOW_MS,
  });
  const auth = makeAuthService({ db, store, config, hasher, mailer, throttle, log: app.log });
  const companies = makeCompaniesService({ db, store });

  await app.register(authRoutes({ auth, db }), { prefix: '/api/v2/auth' });
  await app.register(companiesRoutes({ companies }), { prefix: '/api/v2/companies' });
  await app.register(membersRoutes({ members: makeMembersService({ db, store, companies }) }), { prefix: '/api/v2/companies' });
  await app.register(publicSettingsRoutes({ db, companies }), { prefix: '/api/v2' });
  await app.register(teamsRoutes({ teams: makeTeamsService({ db, store }) }), { prefix: '/api/v2/teams' });
  await app.register(partnersRoutes({ db, store, companies }), { prefix: '/api/v2/partners' });
  return { mailer };
}
