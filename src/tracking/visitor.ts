import { createHash } from 'node:crypto';
import Bowser from 'bowser';
import ipaddr from 'ipaddr.js';
import { isbot } from 'isbot';

/** The address cut to its /24 (IPv4) or /48 (IPv6) network: what is kept instead of the address. */
export function networkOf(address: string): string {
  if (!ipaddr.isValid(address)) return 'unknown';
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') {
    const [a, b, c] = (ip as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0/24`;
  }
  const parts = (ip as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([parts[0]!, parts[1]!, parts[2]!, 0, 0, 0, 0, 0]).toString()}/48`;
}

/**
 * A visitor's id for one company and day: a hash of the full address and user agent with the
 * day's salt. The salt is deleted after two days, so the hash cannot be traced back to an address.
 */
export const visitorHash = (salt: string, tenant: string, address: string, userAgent: string) =>
  createHash('sha256').update(`${salt}\n${tenant}\n${address}\n${userAgent}`).digest('base64url').slice(0, 22);

export interface Agent {
  browser: string;
  os: string;
  device: string;
}

const MAX_UA = 512;
const cut = (s: string | undefined, n: number) => (s ?? '').slice(0, n);

/** Browser, operating system and device type of a user agent (bowser); empty names for what it cannot tell. */
export function agentOf(userAgent: string): Agent {
  try {
    const p = Bowser.parse(userAgent.slice(0, MAX_UA));
    const major = p.browser.version?.split('.')[0];
    return { browser: cut(p.browser.name ? `${p.browser.name}${major ? ` ${major}` : ''}` : '', 60), os: cut(p.os.name, 60), device: cut(p.platform.type, 20) };
  } catch {
    return { browser: '', os: '', device: '' };
  }
}

/** A crawler, a monitor or a headless browser (isbot), or no user agent at all. */
export const isBotAgent = (userAgent: string) => userAgent.trim() === '' || isbot(userAgent.slice(0, MAX_UA));

/** The visitor asked not to be tracked: `DNT: 1` or `Sec-GPC: 1`. */
export const refusesTracking = (headers: Record<string, string | string[] | undefined>) => headers.dnt === '1' || headers['sec-gpc'] === '1';
