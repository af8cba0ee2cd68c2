import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('files configuration, checked at start', () => {
  it('defaults to local storage with nothing to set', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ STORAGE: 'local', FILES_URL_TTL_SECONDS: 300, FILES_MAX_FILE_BYTES: 100 * 1024 * 1024 });
  });

  it('refuses S3 without a bucket, half a credential pair, a TTL over 15 minutes, a short signing key', () => {
    const fails = (env: Record<string, string>, variable: string) => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(new RegExp(variable));
    };
    fails({ STORAGE: 's3' }, 'S3_BUCKET');
    fails({ STORAGE: 's3', S3_BUCKET: 'b-1', S3_ACCESS_KEY_ID: 'AKIA' }, 'S3_SECRET_ACCESS_KEY');
    fails({ FILES_URL_TTL_SECONDS: '901' }, 'FILES_URL_TTL_SECONDS');
    fails({ FILES_SIGNING_KEY: 'short' }, 'FILES_SIGNING_KEY');
    fails({ FILES_MAX_FILE_BYTES: '2000', FILES_MAX_REQUEST_BYTES: '1000' }, 'FILES_MAX_REQUEST_BYTES');
    fails({ S3_ENDPOINT: 'not a url' }, 'S3_ENDPOINT');
    expect(loadConfig({ STORAGE: 's3', S3_BUCKET: 'bucket', S3_FORCE_PATH_STYLE: 'true', S3_ENDPOINT: 'http://127.0.0.1:9000' })).toMatchObject({ STORAGE: 's3', S3_FORCE_PATH_STYLE: true });
  });
});
