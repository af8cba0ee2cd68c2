import { z } from 'zod';
import { checkFilesConfig, filesConfigShape } from './files/files.config.js';
import { appsConfigShape } from './apps/apps.config.js';
import { functionsConfigShape } from './apps/functions/functions.config.js';
import { eventsConfigShape } from './events/events.config.js';
import { billingConfigShape } from './billing/billing.config.js';
import { trackingConfigShape } from './tracking/tracking.config.js';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL').optional(),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
    // Every statement of the API is cancelled after this long (PostgreSQL; 0: no limit), and a
    // longer one for migrations, rebuilds and statistics (docs/operations.md).
    STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(15_000),
    MAINTENANCE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30 * 60_000),
    // How often the read models' statistics are checked and refreshed (0: never; src/db/statistics.ts).
    STATISTICS_CHECK_MS: z.coerce.number().int().min(0).default(30_000),
    EVENT_STORE: z.enum(['postgres', 'eventstoredb']).default('postgres'),
    EVENTSTORE_URL: z.string().regex(/^(esdb|kurrentdb|kurrent|esdb\+discover)(\+discover)?:\/\//, 'must be an esdb:// connection string').optional(),
    // After SIGTERM/SIGINT: how long the server still accepts and serves (its health route
    // answering 503) before it stops accepting and finishes what is in flight (docs/operations.md).
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).default(1000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
    RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(1200),
    RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(100).default(60_000),
    RATE_LIMIT_ENABLED: bool.default(true),
    IDEMPOTENCY_TTL_MS: z.coerce.number().int().min(1000).default(24 * 3600 * 1000),
    // Public forms (issue 18, docs/forms.md): submissions per address and form per window, 0 = off.
    FORMS_RATE_LIMIT_MAX: z.coerce.number().int().min(0).default(20),
    FORMS_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(100).default(60_000),
    FORMS_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(65_536),
    // CMS import (issue 37, docs/cms.md): the largest site document POST /cms/import takes.
    CMS_IMPORT_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(8 * 1024 * 1024),
    FORMS_UPLOAD_MAX_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024),
    // Identity (issue 3): sessions, passwords, login throttling, one-time tokens, mail.
    SESSION_TTL_MS: z.coerce.number().int().min(1000).default(24 * 3600 * 1000),
    // How long another process may act on a session actor it cached (0: no cache; docs/auth.md).
    AUTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    // How long another process may use an object definition, or a CMS module catalogue, it cached (0: no cache; docs/records.md, docs/cms.md).
    SCHEMA_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    // Filtered index results kept, exact by the object's change count (0: no cache; docs/records.md).
    INDEX_CACHE_ENTRIES: z.coerce.number().int().min(0).max(1_000_000).default(2000),
    // Values (records times columns) the in-process index of filtered lists holds (0: off; ADR 0006).
    INDEX_STORE_CELLS: z.coerce.number().int().min(0).max(200_000_000).default(16_000_000),
    // How far V8 lets the heap grow past what a full collection left alive (0: V8's own choice;
    // docs/architecture.md, "Memory").
    HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(400).default(50),
    PASSWORD_SCRYPT_LOG_N: z.coerce.number().int().min(10).max(20).default(17),
    LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(5),
    LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
    LOGIN_THROTTLE_WINDOW_MS: z.coerce.number().int().min(100).default(15 * 60 * 1000),
    RESET_TOKEN_TTL_MS: z.coerce.number().int().min(1000).default(3600 * 1000),
    VERIFY_TOKEN_TTL_MS: z.coerce.number().int().min(1000).default(48 * 3600 * 1000),
    SUPER_ADMIN_EMAILS: z.string().default('').transform((v) => v.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)),
    SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
    MAIL_FROM: z.string().min(3).default('Platform <no-reply@localhost>'),
    // The base of the links the server makes (mail links, signed file URLs); unset, the server's
    // own address from HOST and PORT (appUrlFrom).
    APP_URL: z.string().url().optional(),
    // Webhooks and syncs (issue 6): reactors, delivery tuning, outbound URL safety.
    REACTORS_ENABLED: bool.default(true),
    WEBHOOK_ALLOWED_HOSTS: z.string().default('').transform((v) => v.split(',').map((h) => h.trim()).filter(Boolean)),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(50).default(10_000),
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
    WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(1000),
    WEBHOOK_MAX_BACKOFF_MS: z.coerce.number().int().min(10).default(3_600_000),
    WEBHOOK_RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(60),
    WEBHOOK_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(10).default(1000),
    WEBHOOK_REPLAY_MAX: z.coerce.number().int().min(1).default(10_000),
    ...filesConfigShape,
    ...appsConfigShape,
    ...functionsConfigShape,
    ...eventsConfigShape,
    ...billingConfigShape,
    ...trackingConfigShape,
    // Webpages (issue 16): how often the page scheduler looks for due publish / unpublish times.
    PAGE_SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(10).max(1000).default(250),
    // Metrics (issue 21): GET /metrics answers only with Authorization: Bearer <METRICS_TOKEN>; unset: no route (docs/operations.md).
    METRICS_TOKEN: z.string().min(16, 'must have at least 16 characters').optional(),
    // Feeds and the content API (issue 37): requests a caller may make per minute to a public feed URL, and to the content API.
    FEED_RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(30),
    CONTENT_RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(600),
  })
  .superRefine((c, ctx) => {
    checkFilesConfig(c, ctx);
    if (c.EVENT_STORE === 'eventstoredb' && !c.EVENTSTORE_URL) {
      ctx.addIssue({ code: 'custom', path: ['EVENTSTORE_URL'], message: 'is required when EVENT_STORE=eventstoredb' });
    }
  })
  .transform((c) => ({ ...c, APP_URL: c.APP_URL ?? appUrlFrom(c.HOST, c.PORT) }));

/**
 * Where this server is reached when APP_URL does not say: HOST and PORT, with a wildcard address
 * (listening on every interface) named `localhost`, and an IPv6 address in brackets.
 */
function appUrlFrom(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '[::]' ? 'localhost' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}
