import type { FastifyRequest } from 'fastify';

/**
 * Query parameters that carry a credential: an app bar's iframe token, an OAuth callback's code
 * and state, a signed download URL's signature (S3's too). Their values never reach a log line;
 * the request's path and the other parameters do (docs/http-edge.md).
 */
const SECRET_PARAMS = new Set(['platform_iframe_token', 'token', 'code', 'state', 'sig', 'x-amz-signature', 'x-amz-credential', 'x-amz-security-token']);

/** The URL with the values of credential-carrying query parameters replaced by `[redacted]`. */
export function redactedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // a malformed name is logged as it came; it names no credential we know
      }
      return eq >= 0 && SECRET_PARAMS.has(decoded.toLowerCase()) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

/** Fastify's request serializer, with the URL redacted. */
export function requestLogFields(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
