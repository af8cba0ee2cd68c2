import { z } from 'zod';

const uuid = z.string().uuid();

/** Where a file is attached: a record's property of format `file`. */
export const fileAttachmentSchema = z.object({ recordUuid: uuid, property: z.string() });
export type FileAttachment = z.infer<typeof fileAttachmentSchema>;

/**
 * What the server learnt of the bytes while storing them: the type sniffed from the bytes (never
 * the client's word), the size, the SHA-256 and the sanitised name. `key` is the object-storage
 * key; `visibility` public files (webpage attachments) are served without a signature.
 */
export const fileStoredSchema = z.object({
  fileUuid: uuid,
  key: z.string(),
  name: z.string(),
  contentType: z.string(),
  size: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  visibility: z.enum(['private', 'public']),
  /** The webpage (record) whose attachments folder holds the file, when it is a webpage upload. */
  pageUuid: uuid.nullable(),
});
export type FileStored = z.infer<typeof fileStoredSchema>;

export const fileUploaded = z.object({ type: z.literal('FileUploaded'), version: z.literal(1), data: fileStoredSchema });
export const fileAttached = z.object({ type: z.literal('FileAttached'), version: z.literal(1), data: fileAttachmentSchema });
export const fileDetached = z.object({ type: z.literal('FileDetached'), version: z.literal(1), data: fileAttachmentSchema });
export const fileDeleted = z.object({ type: z.literal('FileDeleted'), version: z.literal(1), data: z.object({ fileUuid: uuid }) });
export const fileRestored = z.object({ type: z.literal('FileRestored'), version: z.literal(1), data: z.object({ fileUuid: uuid }) });
export const filePurged = z.object({ type: z.literal('FilePurged'), version: z.literal(1), data: z.object({ fileUuid: uuid, key: z.string() }) });

export const fileEventSchema = z.discriminatedUnion('type', [fileUploaded, fileAttached, fileDetached, fileDeleted, fileRestored, filePurged]);
export type FileEvent = z.infer<typeof fileEventSchema>;
export const fileEventTypes = fileEventSchema.options.map((o) => o.shape.type.value);

export const FILE_STREAM_PREFIX = 'file-';
export const fileStream = (fileUuid: string) => `${FILE_STREAM_PREFIX}${fileUuid}`;
/** The file uuid a file stream id names. */
export const fileUuidOfStream = (streamId: string) => streamId.slice(FILE_STREAM_PREFIX.length);
