import type { Mail } from '../mail/mailer.js';

/** The billing setup mail: a one-time link to set up payment for the company. */
export const setupMail = (to: string, companyName: string, appUrl: string, token: string, ttlMinutes: number): Mail => ({
  to,
  subject: 'Set up billing for your company',
  text: [
    `Open ${appUrl}/billing/setup?token=${token} to set up billing${companyName ? ` for ${companyName}` : ''}.`,
    '',
    `Setup token: ${token}`,
    '',
    `The link works once, for ${ttlMinutes} minutes. A newer setup mail replaces it.`,
    'If you did not ask for this, ignore this mail.',
  ].join('\n'),
});
