import { z } from 'zod';

/** App functions, jobs and runtime logs (issue 35; docs/apps.md, "Functions"). Spread into src/config.ts. */
export const functionsConfigShape = {
  /** Sandbox worker threads (QuickJS in WebAssembly); each runs many invocations, interleaved at their awaits. */
  APPS_FUNCTION_WORKERS: z.coerce.number().int().min(1).max(64).default(2),
  /** The WebAssembly heap ceiling of one worker: what stops a memory bomb. */
  APPS_FUNCTION_WORKER_HEAP_MB: z.coerce.number().int().min(16).max(2048).default(256),
  /** Per invocation; a manifest may ask for less, never more. */
  APPS_FUNCTION_CPU_MS: z.coerce.number().int().min(1).max(600_000).default(1000),
  APPS_FUNCTION_WALL_MS: z.coerce.number().int().min(1).max(3_600_000).default(10_000),
  APPS_FUNCTION_MEMORY_MB: z.coerce.number().int().min(1).max(1024).default(32),
  APPS_FUNCTION_OUTPUT_BYTES: z.coerce.number().int().min(1).max(16 * 1024 * 1024).default(256 * 1024),
  APPS_FUNCTION_LOG_LINES: z.coerce.number().int().min(0).max(10_000).default(200),
  APPS_FUNCTION_HOST_CALLS: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** A deploy's bundle, at most. */
  APPS_DEPLOY_MAX_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(1024 * 1024),
  /** Jobs: how often a runner looks for due jobs, how many it runs at once, and the lease past an attempt's timeout. */
  APPS_JOBS_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  APPS_JOBS_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  APPS_JOBS_LEASE_MARGIN_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Runtime log stream: poll interval and longest life (spec 8: about 2.5 s, 5 minutes). */
  APPS_LOGS_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(2500),
  APPS_LOGS_STREAM_MAX_MS: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
};
