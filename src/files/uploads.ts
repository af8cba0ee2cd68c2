import type { MultipartFile } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorDetail } from '../../aggregates/kernel/errors.js';
import type { FileStored } from '../../aggregates/file/file.events.js';
import type { Config } from '../config.js';
import { sendError } from '../http/error-handler.js';
import type { FilesService, UploadPlan } from './files.service.js';
import { TooLargeError, TypeRefusedError } from './inspect-upload.js';

/** Limits of the multipart parser: one byte past the file limit, so the inspector sees the excess and fails the store. */
export const multipartLimits = (config: Config) => ({
  fileSize: config.FILES_MAX_FILE_BYTES + 1,
  files: config.FILES_MAX_PER_REQUEST,
  fields: 20,
  fieldSize: 4096,
  parts: config.FILES_MAX_PER_REQUEST + 20,
});

export const mib = (n: number) => `${Math.round((n / 1048576) * 10) / 10} MiB`;

/** A failure of one upload, as the error details the caller sees (null: not an upload failure). */
export function uploadFailure(err: unknown, property?: string): { status: number; message: string; details: ErrorDetail[] } | null {
  if (err instanceof TooLargeError) {
    const what = err.scope === 'file' ? 'The file' : 'The request';
    return {
      status: 413,
      message: `${what} is larger than ${mib(err.limit)}`,
      details: [{ message: `${what} is larger than the limit of ${err.limit} bytes`, type: 'VALIDATION', correctionSuggestion: err.scope === 'file' ? `Send files of at most ${mib(err.limit)}` : `Send at most ${mib(err.limit)} in one request; split the files over several requests` }],
    };
  }
  if (err instanceof TypeRefusedError) {
    return {
      status: 400,
      message: `Files of type ${err.contentType} are not accepted${property ? ` by ${property}` : ''}`,
      details: [{ message: `The file's content is ${err.contentType}; accepted: ${err.accepted.join(', ')}`, type: 'INVALID_FILE_TYPE', correctionSuggestion: `Send a file of type ${err.accepted.join(' or ')} (the type is read from the bytes, not the name)` }],
    };
  }
  const code = (err as { code?: string }).code;
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return { status: 413, message: 'Too many files in one request', details: [{ message: 'The request has more files than the server takes at once', type: 'VALIDATION', correctionSuggestion: 'Split the files over several requests' }] };
  }
  if (err instanceof DomainError && err.code === 'VALIDATION_FAILED') return { status: 400, message: err.message, details: err.details };
  return null;
}

/** 413 before reading anything when the declared length is already past the request limit. */
export function refuseDeclaredLength(request: FastifyRequest, config: Config): TooLargeError | null {
  const declared = Number(request.headers['content-length']);
  // Multipart framing adds a few hundred bytes per part; allow for it.
  const slack = 1024 * (config.FILES_MAX_PER_REQUEST + 1);
  return Number.isFinite(declared) && declared > config.FILES_MAX_REQUEST_BYTES + slack ? new TooLargeError('request', config.FILES_MAX_REQUEST_BYTES) : null;
}

/** 413 before reading anything when a raw body (one file, no framing) declares more than the file limit. */
export function refuseDeclaredFileLength(request: FastifyRequest, config: Config): TooLargeError | null {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) && declared > config.FILES_MAX_FILE_BYTES ? new TooLargeError('file', config.FILES_MAX_FILE_BYTES) : null;
}

export const noFile = () =>
  new DomainError('VALIDATION_FAILED', 'No file in the request', [{ field: 'file', message: 'The multipart body holds no file part', type: 'VALIDATION', correctionSuggestion: 'Send the file as a multipart/form-data part with a filename' }]);

/** Sends the error body of an upload failure, or rethrows what is not one. */
export function sendUploadFailure(request: FastifyRequest, reply: FastifyReply, err: unknown, property?: string) {
  const failure = uploadFailure(err, property);
  if (!failure) throw err;
  return sendError(request, reply, failure.status, failure.message, failure.details);
}

/** Stores one multipart file part under the plan; the request's remaining byte budget shrinks by its size. */
export async function storePart(files: FilesService, tenant: string, part: MultipartFile, plan: Omit<UploadPlan, 'maxBytes' | 'scopeOfLimit'>, budget: { left: number; maxFile: number }, publicFolder = false): Promise<FileStored> {
  const byRequest = budget.left < budget.maxFile;
  const stored = await files.store(tenant, part.file, part.filename, { ...plan, maxBytes: Math.min(budget.left, budget.maxFile), scopeOfLimit: byRequest ? 'request' : 'file' }, publicFolder);
  budget.left -= stored.size;
  return stored;
}
