import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const MiB = 1024 * 1024;

/** Files (issue 17): storage adapter, URL signing and upload limits (docs/files.md). Spread into src/config.ts. */
export const filesConfigShape = {
  STORAGE: z.enum(['local', 's3']).default('local'),
  S3_BUCKET: z.string().min(3).max(63).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  // The local adapter's URL-signing key; unset, one is generated once into DATA_DIR/files.
  FILES_SIGNING_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  FILES_URL_TTL_SECONDS: z.coerce.number().int().min(1).max(900).default(300),
  FILES_MAX_FILE_BYTES: z.coerce.number().int().min(1).default(100 * MiB),
  FILES_MAX_REQUEST_BYTES: z.coerce.number().int().min(1).default(500 * MiB),
  FILES_MAX_PER_REQUEST: z.coerce.number().int().min(1).max(1000).default(100),
  // A young-generation GC every this many MiB uploaded (0: never): ADR 0015.
  FILES_SCAVENGE_EVERY_MIB: z.coerce.number().int().min(0).default(16),
};

const filesConfigSchema = z.object(filesConfigShape);
type FilesConfig = z.infer<typeof filesConfigSchema>;

/** What the shape alone cannot say: S3 needs a bucket, and credentials come in pairs. */
export function checkFilesConfig(c: FilesConfig, ctx: z.RefinementCtx) {
  if (c.STORAGE === 's3' && !c.S3_BUCKET) ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when STORAGE=s3' });
  if (!!c.S3_ACCESS_KEY_ID !== !!c.S3_SECRET_ACCESS_KEY) {
    ctx.addIssue({ code: 'custom', path: [c.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'], message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together' });
  }
  if (c.FILES_MAX_REQUEST_BYTES < c.FILES_MAX_FILE_BYTES) ctx.addIssue({ code: 'custom', path: ['FILES_MAX_REQUEST_BYTES'], message: 'must be at least FILES_MAX_FILE_BYTES' });
}
