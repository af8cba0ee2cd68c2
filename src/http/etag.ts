/** Whether an If-None-Match header names `etag` (or is `*`); weak and strong forms compare alike (RFC 9110 13.1.2). */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (typeof header !== 'string' || header.length > 2000) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === bare;
  });
}
