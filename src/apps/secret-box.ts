import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for installation secrets. A sealed value is `v1.<iv>.<ciphertext>.<tag>` (base64url),
 * bound to where it belongs (`aad`: tenant, app and name), so a ciphertext copied to another
 * installation or name does not open.
 */
export interface SecretBox {
  seal(plain: string, aad: string): string;
  open(sealed: string, aad: string): string;
}

export function makeSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return {
    seal(plain, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed, aad) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== 'v1' || !iv || body === undefined || !tag) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** The box of the configured key; outside production without one, a random key of this process. */
export function secretBoxFrom(config: { NODE_ENV: string; APPS_SECRETS_KEY?: string }): SecretBox {
  if (config.APPS_SECRETS_KEY) return makeSecretBox(Buffer.from(config.APPS_SECRETS_KEY, 'base64'));
  if (config.NODE_ENV === 'production') throw new Error('APPS_SECRETS_KEY is required in production');
  return makeSecretBox(randomBytes(32));
}
