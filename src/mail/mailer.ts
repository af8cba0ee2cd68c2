import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface KeptMail extends Mail {
  sentAt: number;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  /** The kept mails, newest first, when there is no SMTP transport and this is not production; else null. */
  outbox(): readonly KeptMail[] | null;
  close(): void;
}

const OUTBOX_SIZE = 50;

/**
 * SMTP through nodemailer when `smtpUrl` is set. Without it mail is only logged (recipient and
 * subject, never the body: it holds one-time tokens) and, outside production, kept in a small
 * in-memory outbox that GET /api/v2/dev/mail shows to DEVELOPERs.
 */
export function makeMailer(args: { smtpUrl?: string; from: string; log: FastifyBaseLogger; keepOutbox: boolean }): Mailer {
  if (args.smtpUrl) {
    const transport = nodemailer.createTransport(args.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: args.from, to: mail.to, subject: mail.subject, text: mail.text });
        args.log.info({ to: mail.to, subject: mail.subject }, 'mail sent');
      },
      outbox: () => null,
      close: () => transport.close(),
    };
  }
  const kept: KeptMail[] = [];
  return {
    async send(mail) {
      args.log.info({ to: mail.to, subject: mail.subject }, 'mail not sent (no SMTP_URL)');
      if (!args.keepOutbox) return;
      kept.unshift({ ...mail, sentAt: Date.now() });
      kept.length = Math.min(kept.length, OUTBOX_SIZE);
    },
    outbox: () => (args.keepOutbox ? [...kept] : null),
    close: () => {},
  };
}
