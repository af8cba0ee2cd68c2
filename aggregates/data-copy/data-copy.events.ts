import { z } from 'zod';

const uuid = z.string().uuid();

/** One source uuid and the copy's new one; `kind` is the stream prefix it was found in (object, record, ...). */
export const uuidPair = z.object({ source: uuid, copy: uuid, kind: z.string() });
export type UuidPair = z.infer<typeof uuidPair>;

export const dataCopyStarted = z.object({
  type: z.literal('CompanyDataCopyStarted'),
  version: z.literal(1),
  data: z.object({
    sourceCompanyUuid: uuid,
    asOf: z.object({ position: z.number().int().nullable(), time: z.number().int().nullable() }),
    upToPosition: z.number().int(),
    total: z.number().int(),
  }),
});
export const dataCopyUuidsMapped = z.object({ type: z.literal('CompanyDataCopyUuidsMapped'), version: z.literal(1), data: z.object({ pairs: z.array(uuidPair) }) });
export const dataCopyProgressed = z.object({ type: z.literal('CompanyDataCopyProgressed'), version: z.literal(1), data: z.object({ copied: z.number().int(), total: z.number().int() }) });
export const dataCopyFinished = z.object({ type: z.literal('CompanyDataCopyFinished'), version: z.literal(1), data: z.object({ copied: z.number().int(), total: z.number().int() }) });
export const dataCopyFailed = z.object({ type: z.literal('CompanyDataCopyFailed'), version: z.literal(1), data: z.object({ reason: z.string() }) });

export const dataCopyEventSchema = z.discriminatedUnion('type', [dataCopyStarted, dataCopyUuidsMapped, dataCopyProgressed, dataCopyFinished, dataCopyFailed]);
export type DataCopyEvent = z.infer<typeof dataCopyEventSchema>;
export const dataCopyEventTypes = dataCopyEventSchema.options.map((o) => o.shape.type.value);

/** In the copy's tenant: one stream per copy, named by the copy (the new company). */
export const DATA_COPY_STREAM_PREFIX = 'data-copy-';
export const dataCopyStream = (copyCompanyUuid: string) => `${DATA_COPY_STREAM_PREFIX}${copyCompanyUuid}`;
export const dataCopyUuidOfStream = (streamId: string) => streamId.slice(DATA_COPY_STREAM_PREFIX.length);
