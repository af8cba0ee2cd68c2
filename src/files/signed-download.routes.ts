import type { FastifyPluginAsync } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { LocalStorage } from './storage/local.storage.js';
import type { ObjectStorage } from './storage/storage.port.js';
import { SIGNED_PREFIX, type SignedQuery } from './storage/url-signing.js';

const refused = (reason: 'expired' | 'bad-signature') =>
  new DomainError('FORBIDDEN', reason === 'expired' ? 'The download URL has expired' : 'The download URL is not valid', [
    reason === 'expired'
      ? { message: 'The signed URL is past its expiry', type: 'GENERAL', correctionSuggestion: 'Ask for a new URL with GET /api/v2/files/{uuid}/url' }
      : { message: 'The signature does not match the URL (it was changed, or signed by another key)', type: 'GENERAL', correctionSuggestion: 'Use the URL exactly as GET /api/v2/files/{uuid}/url returned it' },
  ]);

/**
 * The local adapter's signed downloads (`GET /api/v2/files/signed/<key>?expires&ct&cd&sig`):
 * public, the signature is the credential. It covers method, path, expiry and the response
 * headers, so a URL cannot be turned into another file's, a longer life or an inline HTML page.
 */
export const signedDownloadRoutes = (storage: ObjectStorage): FastifyPluginAsync => async (app) => {
  app.get('/*', { config: { auth: 'public' }, schema: { tags: ['files'], description: "Downloads a file through a signed URL (local storage only; S3 URLs point at the bucket).", hide: true } }, async (request, reply) => {
    if (storage.kind !== 'local') throw new DomainError('NOT_FOUND', 'Not found', [{ message: 'Signed URLs of this server point at its object store', type: 'NOT_FOUND', correctionSuggestion: 'Use the URL GET /api/v2/files/{uuid}/url returned' }]);
    const path = request.url.split('?')[0]!;
    const verdict = await (storage as LocalStorage).verify(request.method, path, request.query as Partial<SignedQuery>, Date.now());
    if (!verdict.ok) throw refused(verdict.reason);
    const body = await storage.get(path.slice(SIGNED_PREFIX.length));
    if (!body) throw new DomainError('NOT_FOUND', 'File not found', [{ message: 'The file is no longer stored', type: 'NOT_FOUND', correctionSuggestion: 'The file was purged; upload it again' }]);
    return reply
      .header('content-type', verdict.headers.contentType)
      .header('content-disposition', verdict.headers.disposition)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'private, no-store')
      .send(body);
  });
};
