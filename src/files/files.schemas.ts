import { z } from 'zod';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';
import type { FileRow, RecordFileRow } from '../../read-models/files.queries.js';

export const fileSchema = z
  .object({
    uuid: z.string(),
    name: z.string().describe('The sanitised name the client sent'),
    contentType: z.string().describe('Sniffed from the bytes, never taken from the name or the request'),
    size: z.number().int(),
    sha256: z.string().describe('SHA-256 of the bytes, hex'),
    visibility: z.enum(['private', 'public']),
    pageUuid: z.string().nullable(),
    ...auditFields,
  })
  .meta({ id: 'File' });

export const recordFileSchema = fileSchema.extend({ property: z.string(), attachedAt: z.number().int() }).meta({ id: 'RecordFile' });

export const uploadResultSchema = z
  .object({
    index: z.number().int().describe('Position of the part among the request\'s files, from 0'),
    name: z.string(),
    status: z.number().int().describe('201 stored, or the status this file alone would have had'),
    file: fileSchema.nullable(),
    errors: z.array(z.object({ message: z.string(), type: z.string(), correctionSuggestion: z.string() })),
  })
  .meta({ id: 'FileUploadResult' });

export const urlSchema = z.object({ url: z.string(), expiresAt: z.number().int().describe('Epoch milliseconds') }).meta({ id: 'FileUrl' });

const uploadQuery = {
  recordUuid: z.uuid().optional().describe('Attach the upload to this record...'),
  property: z.string().min(1).max(200).optional().describe('...in this property of format file (its options list the accepted types)'),
};
const together = (q: { recordUuid?: string; property?: string }) => (q.recordUuid === undefined) === (q.property === undefined);
const togetherMessage = { message: 'recordUuid and property go together', path: ['property'] };

export const uploadQuerySchema = z.object(uploadQuery).strict().refine(together, togetherMessage);

/** POST /files also takes a raw body (application/octet-stream): its file name comes in ?name=. */
export const uploadOneQuerySchema = z
  .object({
    ...uploadQuery,
    name: z.string().min(1).max(1000).optional().describe('The file name of a raw upload (Content-Type application/octet-stream); a multipart part names itself'),
  })
  .strict()
  .refine(together, togetherMessage);

export const toFile = (row: FileRow, actors: Actors): z.infer<typeof fileSchema> => ({
  uuid: row.file_uuid,
  name: row.name,
  contentType: row.content_type,
  size: Number(row.size),
  sha256: row.sha256,
  visibility: row.visibility,
  pageUuid: row.page_uuid,
  ...auditFieldsOf(row, actors),
});

export const toRecordFile = (row: RecordFileRow, actors: Actors): z.infer<typeof recordFileSchema> => ({ ...toFile(row, actors), property: row.property, attachedAt: Number(row.attached_at) });
