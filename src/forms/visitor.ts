import { isIPv4, isIPv6 } from 'node:net';

/** The visitor's address cut to its network (IPv4 /24, IPv6 /48): enough for abuse, not a person. */
export function truncatedAddress(ip: string): string {
  const v4 = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0`;
  if (isIPv6(ip)) {
    const [head = ''] = ip.split('::');
    const groups = head.split(':').filter(Boolean);
    return `${[...groups, '0', '0', '0'].slice(0, 3).join(':')}::`;
  }
  return 'unknown';
}

/** A user agent as stored: printable, at most 300 characters. */
export const storedUserAgent = (ua: unknown) => (typeof ua === 'string' ? ua.replace(/[^\x20-\x7e]/g, '').slice(0, 300) : '');
