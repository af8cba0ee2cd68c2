import type { FastifyInstance } from 'fastify';
import { sendError } from './error-handler.js';

/**
 * A route that takes files declares `config.upload`: its multipart/form-data body is documented
 * in the OpenAPI document from it (`uploadRequestBody`, the swagger transform), and any other body
 * is a 415 before it is read (`registerUploadBodies`). Not a zod `body`: the route streams the
 * parts itself, and Fastify would validate a body it never parses.
 */
export interface UploadBody {
  /** `one`: the first file part is read; `many`: every file part, each with its own result. */
  files: 'one' | 'many';
  /** The bytes themselves are taken too, as `application/octet-stream` (one file, no framing). */
  raw?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    upload?: UploadBody;
  }
}

const binary = { type: 'string', format: 'binary' } as const;

/** The OpenAPI requestBody (in @fastify/swagger's `body.content` form) of an upload route. */
export function uploadRequestBody(upload: UploadBody) {
  const file =
    upload.files === 'one'
      ? { ...binary, description: 'The file, with its file name (Content-Disposition filename). Only the first file part is read, whatever its field name.' }
      : { type: 'array', items: binary, description: 'The files, each a part with its file name (Content-Disposition filename), under any field name; every file part is read.' };
  return {
    content: {
      'multipart/form-data': { schema: { type: 'object', properties: { file }, required: ['file'] } },
      ...(upload.raw ? { 'application/octet-stream': { schema: { ...binary, description: 'The bytes of one file; its name in ?name=' } } } : {}),
    },
  };
}

/**
 * An upload route answers a body that is not multipart/form-data (nor, where taken, raw bytes)
 * with 415 and the error body, before reading it; after authentication, so a caller without a
 * token still hears 401 first. (@fastify/multipart's own answer is a 406.)
 */
export function registerUploadBodies(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    const upload = request.routeOptions.config.upload;
    if (!upload) return done();
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'multipart/form-data' || (upload.raw && type === 'application/octet-stream')) return done();
    const accepted = upload.raw ? 'multipart/form-data or application/octet-stream' : 'multipart/form-data';
    sendError(request, reply, 415, 'Unsupported content type', [
      { message: `This route takes ${accepted}, not ${type || 'a body without a Content-Type'}`, type: 'VALIDATION', correctionSuggestion: `Send the file${upload.files === 'many' ? 's' : ''} as ${accepted}` },
    ]);
  });
}
