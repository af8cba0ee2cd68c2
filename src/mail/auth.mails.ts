import type { Mail } from './mailer.js';

/** The password-reset mail: the token is in the link and on its own line. */
export const resetMail = (to: string, appUrl: string, token: string, ttlMinutes: number): Mail => ({
  to,
  subject: 'Reset your password',
  text: [
    'Someone asked to reset the password of your account.',
    `Open ${appUrl}/reset-password?token=${token} to choose a new one.`,
    '',
    `Reset token: ${token}`,
    '',
    `The link works once, for ${ttlMinutes} minutes. Resetting signs you out everywhere.`,
    'If you did not ask for this, ignore this mail.',
  ].join('\n'),
});

export const verifyMail = (to: string, appUrl: string, token: string): Mail => ({
  to,
  subject: 'Confirm your e-mail address',
  text: [`Open ${appUrl}/verify-email?token=${token} to confirm your address.`, '', `Verification token: ${token}`, '', 'The link works once.'].join('\n'),
});
