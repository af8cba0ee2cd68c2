import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('config from the environment', () => {
  it('defaults to the embedded database with no configuration', () => {
    const c = loadConfig({});
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.EVENT_STORE).toBe('postgres');
    expect(c.PORT).toBe(3000);
    expect(c.HEAP_GROWING_PERCENT).toBe(50);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ EVENT_STORE: 'kafka' }, 'EVENT_STORE'],
    [{ EVENT_STORE: 'eventstoredb' }, 'EVENTSTORE_URL'],
    [{ RATE_LIMIT_ENABLED: 'maybe' }, 'RATE_LIMIT_ENABLED'],
    [{ HEAP_GROWING_PERCENT: '-5' }, 'HEAP_GROWING_PERCENT'],
  ])('a bad value stops the start naming the variable: %o', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}:`));
  });

  it('takes DATABASE_URL, PORT and HOST', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@h/db', PORT: '8080', HOST: '0.0.0.0' });
    expect([c.DATABASE_URL, c.PORT, c.HOST]).toEqual(['postgres://u@h/db', 8080, '0.0.0.0']);
  });
});
