import { Webhook } from 'standardwebhooks';

/**
 * The Standard Webhooks signer for a webhook's secret. A `whsec_` secret is base64 of the key, as
 * the standard has it; any other secret is used as its UTF-8 bytes (a verifier takes it with
 * `new Webhook(Buffer.from(secret), { format: 'raw' })`). docs/webhooks.md shows both.
 */
export function signerFor(secret: string): Webhook {
  return secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
}

/** The three Standard Webhooks headers: HMAC-SHA256 over `${id}.${timestamp}.${body}`. */
export function signatureHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signerFor(secret).sign(messageId, at, body),
  };
}
