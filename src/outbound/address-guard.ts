import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Where an outbound request may go: the URL and the address it resolved to, pinned for the request. */
export interface SafeTarget {
  url: URL;
  /** The hostname without IPv6 brackets. */
  hostname: string;
  address: string;
  family: 4 | 6;
}

/** Why a URL is refused; `reason` is safe to show to the caller (it never holds a receiver's answer). */
export class UrlRefused extends Error {
  constructor(readonly reason: string, readonly kind: 'syntax' | 'address' | 'dns') {
    super(reason);
    this.name = 'UrlRefused';
  }
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

// Names that are internal whatever DNS says (and may not resolve where the check runs).
const internalName = (host: string) =>
  host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal') ||
  host === 'metadata' || host === 'instance-data' || host === 'metadata.google.internal';

/**
 * The range of an address, IPv4-mapped IPv6 (::ffff:a.b.c.d) judged as the IPv4 it carries. Only
 * `unicast` (public) passes: loopback, private, link-local (cloud metadata 169.254.169.254),
 * unique-local (fd00:ec2::254), carrier-grade NAT, multicast, reserved, and the IPv6 ranges that
 * embed IPv4 (6to4, Teredo, NAT64) are all refused.
 */
export function addressRange(address: string): string {
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range();
}

export const isPublicAddress = (address: string) => addressRange(address) === 'unicast';

interface Allowance {
  hosts: Set<string>;
  suffixes: string[];
  cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

/**
 * WEBHOOK_ALLOWED_HOSTS entries: a hostname (`hooks.corp.example`), a suffix (`*.corp.example`),
 * an address (`127.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`). An allowed hostname skips the
 * address check; an allowed address or range lets that address through for any hostname.
 */
export function parseAllowance(entries: readonly string[]): Allowance {
  const a: Allowance = { hosts: new Set(), suffixes: [], cidrs: [] };
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '');
    if (!entry) continue;
    if (entry.includes('/') && ipaddr.isValidCIDR(entry)) a.cidrs.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(entry)) a.cidrs.push([ipaddr.parse(entry), ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128]);
    else if (entry.startsWith('*.')) a.suffixes.push(entry.slice(1));
    else a.hosts.add(entry);
  }
  return a;
}

function addressAllowed(a: Allowance, address: string) {
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return a.cidrs.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));
}

/** Parses and checks the scheme; the hostname comes back lowercased, without IPv6 brackets. */
export function parseOutboundUrl(raw: string): { url: URL; hostname: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused(`"${raw}" is not an absolute URL`, 'syntax');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UrlRefused(`scheme ${url.protocol} is not allowed; use http or https`, 'syntax');
  if (url.username || url.password) throw new UrlRefused('the URL must not carry credentials', 'syntax');
  // WHATWG URL parsing already turned numeric IPv4 forms (2130706433, 0x7f.1, 0177.0.0.1) into dotted quads.
  const hostname = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (!hostname) throw new UrlRefused('the URL has no host', 'syntax');
  return { url, hostname };
}

export interface UrlGuard {
  /**
   * Resolves the URL's host and checks every address it resolves to; returns the address to
   * connect to. Call it on every attempt: DNS answers change (rebinding), the pinned address is
   * what the request uses.
   */
  resolve(rawUrl: string): Promise<SafeTarget>;
  /** The check at create/update: literal addresses and internal names are refused, and so is a name resolving to one; a name that does not resolve yet passes (every attempt checks again). */
  check(rawUrl: string): Promise<void>;
}

export function makeUrlGuard(opts: { allowedHosts: readonly string[]; lookup?: Lookup }): UrlGuard {
  const allowance = parseAllowance(opts.allowedHosts);
  const lookup = opts.lookup ?? systemLookup;
  const hostAllowed = (host: string) => allowance.hosts.has(host) || allowance.suffixes.some((s) => host.endsWith(s));

  function judge(hostname: string, address: string) {
    if (hostAllowed(hostname) || addressAllowed(allowance, address)) return;
    const range = addressRange(address);
    if (range !== 'unicast') {
      throw new UrlRefused(`${hostname === address ? 'address' : `host ${hostname} resolves to`} ${address}, a ${range} address; webhooks may only call public addresses`, 'address');
    }
  }

  async function resolve(rawUrl: string): Promise<SafeTarget> {
    const { url, hostname } = parseOutboundUrl(rawUrl);
    if (ipaddr.isValid(hostname)) {
      judge(hostname, hostname);
      return { url, hostname, address: hostname, family: ipaddr.parse(hostname).kind() === 'ipv4' ? 4 : 6 };
    }
    if (internalName(hostname) && !hostAllowed(hostname)) throw new UrlRefused(`host ${hostname} is an internal name; webhooks may only call public addresses`, 'address');
    let answers: { address: string; family: number }[];
    try {
      answers = await lookup(hostname);
    } catch (err) {
      throw new UrlRefused(`host ${hostname} does not resolve (${(err as { code?: string }).code ?? 'lookup failed'})`, 'dns');
    }
    if (answers.length === 0) throw new UrlRefused(`host ${hostname} does not resolve`, 'dns');
    // Every answer must pass: a name that also resolves to an internal address is refused.
    for (const answer of answers) judge(hostname, answer.address);
    const first = answers[0]!;
    return { url, hostname, address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  return {
    resolve,
    async check(rawUrl) {
      try {
        await resolve(rawUrl);
      } catch (err) {
        if (err instanceof UrlRefused && err.kind === 'dns') return;
        throw err;
      }
    },
  };
}
