import { describe, expect, it } from 'vitest';
import { addressRange, makeUrlGuard, UrlRefused, type Lookup } from '../../src/outbound/index.js';

const refusedUrls = [
  'http://127.0.0.1/hook',
  'http://127.0.0.1:8080/hook',
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[0:0:0:0:0:ffff:7f00:1]/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:169.254.169.254]/',
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.1.1/',
  'http://100.100.100.200/',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
  'http://[fe80::1]/',
  'http://[fd00:ec2::254]/',
  'http://[64:ff9b::a00:1]/',
  'http://[2002:a00:1::]/',
  'http://224.0.0.1/',
  // Numeric forms of 127.0.0.1 (the URL parser turns them into dotted quads first).
  'http://2130706433/',
  'http://0x7f.1/',
  'http://017700000001/',
  'http://127.1/',
  // Names that are internal whatever DNS says.
  'http://localhost/',
  'http://api.localhost/',
  'http://metadata.google.internal/computeMetadata/v1/',
];

const noDns: Lookup = async () => {
  throw Object.assign(new Error('no dns in this test'), { code: 'ENOTFOUND' });
};

describe('URL safety', () => {
  it.each(refusedUrls)('refuses %s', async (url) => {
    const guard = makeUrlGuard({ allowedHosts: [], lookup: noDns });
    await expect(guard.resolve(url)).rejects.toBeInstanceOf(UrlRefused);
    await expect(guard.check(url)).rejects.toMatchObject({ kind: 'address' });
  });

  it('classifies IPv4-mapped IPv6 by the IPv4 it carries', () => {
    expect(addressRange('::ffff:127.0.0.1')).toBe('loopback');
    expect(addressRange('::ffff:10.1.2.3')).toBe('private');
    expect(addressRange('::ffff:169.254.169.254')).toBe('linkLocal');
    expect(addressRange('93.184.216.34')).toBe('unicast');
    expect(addressRange('2606:4700::1111')).toBe('unicast');
  });

  it('refuses schemes other than http(s) and URLs with credentials', async () => {
    const guard = makeUrlGuard({ allowedHosts: [], lookup: noDns });
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'https://user:pw@example.com/', 'not a url']) {
      await expect(guard.check(url), url).rejects.toMatchObject({ kind: 'syntax' });
    }
  });

  it('lets a public literal through and pins it', async () => {
    const guard = makeUrlGuard({ allowedHosts: [], lookup: noDns });
    expect(await guard.resolve('https://93.184.216.34/in')).toMatchObject({ address: '93.184.216.34', family: 4, hostname: '93.184.216.34' });
    expect(await guard.resolve('https://[2606:4700::1111]/in')).toMatchObject({ address: '2606:4700::1111', family: 6 });
  });

  it('checks every address a name resolves to, and pins the first', async () => {
    const answers: Record<string, { address: string; family: number }[]> = {
      'public.test': [{ address: '93.184.216.34', family: 4 }, { address: '2606:4700::1111', family: 6 }],
      'mixed.test': [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }],
      'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
      'metadata.test': [{ address: '169.254.169.254', family: 4 }],
    };
    const guard = makeUrlGuard({ allowedHosts: [], lookup: async (h) => answers[h] ?? [] });
    expect(await guard.resolve('https://public.test/x')).toMatchObject({ address: '93.184.216.34', family: 4, hostname: 'public.test' });
    await expect(guard.resolve('https://mixed.test/x')).rejects.toThrow(/10\.0\.0\.7, a private address/);
    await expect(guard.resolve('https://mapped.test/x')).rejects.toThrow(/loopback/);
    await expect(guard.resolve('https://metadata.test/x')).rejects.toThrow(/linkLocal/);
    // A name that does not resolve passes the create-time check (every attempt checks again) but cannot be sent to.
    await expect(guard.check('https://nowhere.test/x')).resolves.toBeUndefined();
    await expect(guard.resolve('https://nowhere.test/x')).rejects.toMatchObject({ kind: 'dns' });
  });

  it('WEBHOOK_ALLOWED_HOSTS lets listed addresses, ranges and names through, and nothing else', async () => {
    const guard = makeUrlGuard({ allowedHosts: ['127.0.0.1', '10.1.0.0/16', 'hooks.internal', '*.corp.localhost'], lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(await guard.resolve('http://127.0.0.1:9999/x')).toMatchObject({ address: '127.0.0.1' });
    expect(await guard.resolve('http://[::ffff:127.0.0.1]/x')).toMatchObject({ address: '::ffff:7f00:1' });
    expect(await guard.resolve('http://10.1.2.3/x')).toMatchObject({ address: '10.1.2.3' });
    expect(await guard.resolve('http://hooks.internal/x')).toMatchObject({ address: '127.0.0.1' });
    expect(await guard.resolve('http://a.corp.localhost/x')).toMatchObject({ address: '127.0.0.1' });
    for (const url of ['http://10.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/', 'http://127.0.0.2/']) {
      await expect(guard.resolve(url), url).rejects.toBeInstanceOf(UrlRefused);
    }
  });
});
