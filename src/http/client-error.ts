import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { errorBody } from './error-body.js';
import type { RouteMethods } from './method-not-allowed.js';

// Node's HTTP parser failures that have a status of their own; any other is a 400.
const statusOfParserError: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request headers too large', 'Send fewer or shorter headers'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout', 'Send the whole request sooner, or retry'],
};

/**
 * A request Node's HTTP parser refused (malformed request line or headers, headers too large)
 * never reaches Fastify: the socket gets this answer, in the spec's error body like every other
 * status at or above 400, then is closed. Fastify's default writes its own body instead. A method
 * the parser does not know (`FOO /api/v2/objects`) on a routed path is a 405 with that path's
 * `Allow`, as a method it knows but no route takes; on any other path a 404.
 */
export const clientError = (routes: RouteMethods) => (err: Error & { code?: string; rawPacket?: unknown }, socket: Socket) => {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let [status, message, correctionSuggestion] = statusOfParserError[err.code ?? ''] ?? [400, 'Malformed HTTP request', 'Send a well-formed HTTP/1.1 request'];
  let headers = '';
  const line = err.code === 'HPE_INVALID_METHOD' ? /^([!#$%&'*+.^`|~\w-]+) (\/[^ ?\r\n]*)/.exec(Buffer.isBuffer(err.rawPacket) ? err.rawPacket.toString('latin1') : '') : null;
  if (line) {
    const allowed = routes.allowed(line[2]!);
    [status, message, correctionSuggestion] = allowed.length ? [405, `Method ${line[1]} not allowed`, `Use one of: ${allowed.join(', ')}`] : [404, 'Route not found', 'Check the path against the OpenAPI document at /api/v2/openapi.json'];
    if (allowed.length) headers = `Allow: ${allowed.join(', ')}\r\n`;
  }
  const requestId = randomUUID();
  const type = status === 404 ? 'NOT_FOUND' : 'VALIDATION';
  const body = JSON.stringify(errorBody({ message, status, requestId, details: [{ message, type, correctionSuggestion }] }));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${message}\r\n${headers}Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
};
