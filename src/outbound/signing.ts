import { Webhook } from 'standardwebhooks';

/**
 * The Standard Webhooks signer for a secret. A `whsec_` secret is base64 of the key, as the
 * standard has it; any other secret is used as its UTF-8 bytes (a verifier takes it with
 * `new Webhook(Buffer.from(secret), { format: 'raw' })`). docs/webhooks.md shows both.
 */
function signerFor(secret: string): Webhook {
  return secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
}

/**
 * The three Standard Webhooks headers: HMAC-SHA256 over `${id}.${timestamp}.${body}`, one
 * signature per secret, space-separated (during a rotation's grace period an app's current and
 * previous secrets both sign, so a receiver that checks either accepts it).
 */
export function signatureHeaders(secrets: string | readonly string[], messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': (typeof secrets === 'string' ? [secrets] : secrets).map((s) => signerFor(s).sign(messageId, at, body)).join(' '),
  };
}
