import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { keyFile } from '../key-file.js';

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

/**
 * The box of the configured key. Outside production without one, the key kept in the data folder
 * (`DATA_DIR/apps/secrets.key`, 32 random bytes, mode 0600), made when the first secret is sealed
 * or opened and read by every later process on the folder, so secrets set in development survive a restart. On
 * PostgreSQL too: the data folder is there (the local file store uses it), and the key file goes
 * with the database it opens (docs/apps.md, "Secrets").
 */
export function secretBoxFrom(config: { NODE_ENV: string; DATA_DIR: string; APPS_SECRETS_KEY?: string }): SecretBox {
  if (config.APPS_SECRETS_KEY) return makeSecretBox(Buffer.from(config.APPS_SECRETS_KEY, 'base64'));
  if (config.NODE_ENV === 'production') throw new Error('APPS_SECRETS_KEY is required in production');
  const file = join(resolve(config.DATA_DIR), 'apps', 'secrets.key');
  let box: SecretBox | undefined;
  const kept = () => (box ??= makeSecretBox(keyFile(file)));
  return { seal: (plain, aad) => kept().seal(plain, aad), open: (sealed, aad) => kept().open(sealed, aad) };
}
