import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { makeMailer, type Mailer } from './mailer.js';

/** The app's mailer (auth mails; the dev routes read the kept outbox), closed with the app. */
export function registerMail(app: FastifyInstance, config: Config): Mailer {
  const mailer = makeMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, log: app.log, keepOutbox: config.NODE_ENV !== 'production' });
  app.addHook('onClose', async () => mailer.close());
  return mailer;
}
