import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { secretBoxFrom } from '../../src/apps/secret-box.js';

// Issue 32, item 2: outside production an unset APPS_SECRETS_KEY is a key generated once into the
// data folder, so app secrets set before a restart still open after it.
describe('the apps secrets key', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-secrets-key-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const aad = 'tenant:app:secret:apiKey';

  it('unset outside production: two starts on one data folder open each other\'s secrets; the key file is 0600', () => {
    const first = secretBoxFrom({ NODE_ENV: 'development', DATA_DIR: dataDir });
    const sealed = first.seal('canary-value', aad);
    const second = secretBoxFrom({ NODE_ENV: 'development', DATA_DIR: dataDir });
    expect(second.open(sealed, aad)).toBe('canary-value');
    const file = join(dataDir, 'apps', 'secrets.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8'), 'base64url')).toHaveLength(32);
  });

  it('another data folder is another key', () => {
    const other = mkdtempSync(join(tmpdir(), 'platform-secrets-key-'));
    try {
      const sealed = secretBoxFrom({ NODE_ENV: 'development', DATA_DIR: dataDir }).seal('canary-value', aad);
      expect(() => secretBoxFrom({ NODE_ENV: 'development', DATA_DIR: other }).open(sealed, aad)).toThrow();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('a given key is used, and no file is written', () => {
    const key = randomBytes(32);
    const dir = mkdtempSync(join(tmpdir(), 'platform-secrets-key-'));
    try {
      const sealed = secretBoxFrom({ NODE_ENV: 'production', DATA_DIR: dir, APPS_SECRETS_KEY: key.toString('base64') }).seal('v', aad);
      expect(secretBoxFrom({ NODE_ENV: 'development', DATA_DIR: dataDir, APPS_SECRETS_KEY: key.toString('base64') }).open(sealed, aad)).toBe('v');
      expect(() => statSync(join(dir, 'apps', 'secrets.key'))).toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('production still requires it to be given', () => {
    expect(() => secretBoxFrom({ NODE_ENV: 'production', DATA_DIR: dataDir })).toThrow('APPS_SECRETS_KEY is required in production');
  });
});
