import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const optionsFor = (logN: number, r: number, p: number): ScryptOptions => ({ N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 2 ** 20 });

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Constant-time check against a stored `scrypt$logN$r$p$salt$key` string. */
  verify(password: string, stored: string): Promise<boolean>;
  /** Spends the same work as a real check, so an unknown account answers as slowly as a known one. */
  burn(password: string): Promise<void>;
}

/**
 * scrypt (memory-hard), parameters kept inside each hash so they can be raised later.
 * Production default: N = 2^17, r = 8, p = 1 (128 MiB per hash); tests lower `logN` by config.
 */
export function makePasswordHasher({ logN }: { logN: number }): PasswordHasher {
  const r = 8;
  const p = 1;
  let dummy: Promise<string> | undefined;
  const hasher: PasswordHasher = {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, optionsFor(logN, r, p));
      return ['scrypt', logN, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
    },
    async verify(password, stored) {
      const [kind, n, rs, ps, salt, key] = stored.split('$');
      if (kind !== 'scrypt' || !salt || !key) return false;
      const expected = Buffer.from(key, 'base64url');
      const actual = await derive(password, Buffer.from(salt, 'base64url'), optionsFor(Number(n), Number(rs), Number(ps)));
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
    async burn(password) {
      dummy ??= hasher.hash(randomBytes(16).toString('hex'));
      await hasher.verify(password, await dummy);
    },
  };
  return hasher;
}
