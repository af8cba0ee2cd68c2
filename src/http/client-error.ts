import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { errorBody } from './error-body.js';

// Node's HTTP parser failures that have a status of their own; any other is a 400.
const statusOfParserError: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request headers too large', 'Send fewer or shorter headers'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout', 'Send the whole request sooner, or retry'],
};

/**
 * A request Node's HTTP parser refused (malformed request line or headers, headers too large)
 * never reaches Fastify: the socket gets this answer, in the spec's error body like every other
 * status at or above 400, then is closed. Fastify's default writes its own body instead.
 */
export function clientError(err: Error & { code?: string }, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message, correctionSuggestion] = statusOfParserError[err.code ?? ''] ?? [400, 'Malformed HTTP request', 'Send a well-formed HTTP/1.1 request'];
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody({ message, status, requestId, details: [{ message, type: 'VALIDATION', correctionSuggestion }] }));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${message}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
