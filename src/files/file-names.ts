/** File names from clients: what is kept, and how a download names the file. */

const MAX_NAME = 200;

/**
 * A client's file name made safe to store and show: the last path segment only (either slash),
 * no control or bidi characters, characters outside letters, digits, space and `._()-` replaced,
 * no leading dots (no hidden files, no `..`), at most 200 characters, never empty.
 */
export function sanitiseFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .replace(/[^\p{L}\p{N} ._()-]/gu, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+/, '')
    .trim();
  const short = [...cleaned].slice(0, MAX_NAME).join('').trim();
  return short || 'file';
}

/** Types a browser may show inline: they run no script. Everything else downloads as an attachment. */
const INLINE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'text/plain', 'application/pdf', 'video/mp4', 'video/webm', 'audio/mpeg', 'audio/ogg', 'audio/wav']);

export const servedInline = (contentType: string) => INLINE.has(contentType);

/**
 * The headers a download is served with. Active types (HTML, SVG, XML, scripts, anything not on
 * the inline list) go out as `application/octet-stream` attachments, so no store or browser
 * renders them; nosniff is set by the routes that serve bytes.
 */
export function downloadHeaders(name: string, contentType: string): { contentType: string; disposition: string } {
  const inline = servedInline(contentType);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const disposition = `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
  return { contentType: inline ? (contentType === 'text/plain' ? 'text/plain; charset=utf-8' : contentType) : 'application/octet-stream', disposition };
}
