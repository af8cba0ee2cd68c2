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

describe('APP_URL, the base of the links the server makes (issue 32, item 1)', () => {
  it.each([
    [{}, 'http://127.0.0.1:3000'],
    [{ PORT: '8080' }, 'http://127.0.0.1:8080'],
    [{ HOST: 'api.internal', PORT: '4000' }, 'http://api.internal:4000'],
    [{ HOST: '0.0.0.0', PORT: '8080' }, 'http://localhost:8080'],
    [{ HOST: '::', PORT: '8080' }, 'http://localhost:8080'],
    [{ HOST: '::1', PORT: '8080' }, 'http://[::1]:8080'],
  ])('unset, it follows HOST and PORT: %o -> %s', (env, url) => {
    expect(loadConfig(env).APP_URL).toBe(url);
  });

  it('a given APP_URL is kept whatever HOST and PORT say', () => {
    expect(loadConfig({ APP_URL: 'https://crm.example.com', PORT: '8080', HOST: '0.0.0.0' }).APP_URL).toBe('https://crm.example.com');
  });
});
