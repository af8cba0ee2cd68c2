import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  /** The text body, quoted-printable decoded. */
  text: string;
}

export interface SmtpReceiver {
  url: string;
  received: ReceivedMail[];
  /** The first mail to `to` (and with a subject containing `subject`) not taken yet; waits for it. */
  next(to: string, subject?: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (s: string) => s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

function parse(raw: string, to: string[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const qp = /quoted-printable/i.test(header('Content-Transfer-Encoding'));
  const text = header('Content-Transfer-Encoding').toLowerCase() === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : qp ? decodeQuotedPrintable(body) : body;
  return { to, from: header('From'), subject: header('Subject'), text: text.replace(/\r\n/g, '\n') };
}

/** A real SMTP server on 127.0.0.1 (no TLS, no auth) that keeps what it receives. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push(parse(Buffer.concat(chunks).toString('utf8'), session.envelope.rcptTo.map((r) => r.address.toLowerCase())));
        for (const wake of waiters) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };

  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async next(to, subject, timeoutMs = 10_000) {
      const find = () => received.find((m) => !taken.has(m) && m.to.includes(to.toLowerCase()) && (!subject || m.subject.includes(subject)));
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = find();
        if (mail) {
          taken.add(mail);
          return mail;
        }
        if (Date.now() > deadline) throw new Error(`no mail to ${to}${subject ? ` about "${subject}"` : ''} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of a reset or verification mail (the line "… token: <token>"). */
export function tokenIn(mail: ReceivedMail): string {
  const match = /token: ([A-Za-z0-9_-]{43})\s*$/m.exec(mail.text);
  if (!match) throw new Error(`no token in mail "${mail.subject}": ${mail.text}`);
  return match[1]!;
}
