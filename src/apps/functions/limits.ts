import type { FunctionSpec } from '../../../aggregates/app-deploy/deploy.manifest.js';
import type { Config } from '../../config.js';
import type { InvocationLimits } from './sandbox.protocol.js';

/** The platform's limits (config) and a function's own (its manifest: only lower). */
export function makeLimits(c: Config) {
  const platform: InvocationLimits = {
    cpuMs: c.APPS_FUNCTION_CPU_MS,
    wallMs: c.APPS_FUNCTION_WALL_MS,
    memoryBytes: c.APPS_FUNCTION_MEMORY_MB * 1024 * 1024,
    outputBytes: c.APPS_FUNCTION_OUTPUT_BYTES,
    logLines: c.APPS_FUNCTION_LOG_LINES,
    logBytes: 64 * 1024,
  };
  return {
    platform,
    hostCalls: c.APPS_FUNCTION_HOST_CALLS,
    /** A function's limits; `wallMs` may be lowered further (a job's timeout). */
    of(spec: FunctionSpec, wallMs?: number): InvocationLimits {
      const low = (a: number, b: number | undefined) => (b === undefined ? a : Math.min(a, b));
      return {
        ...platform,
        cpuMs: low(platform.cpuMs, spec.cpuMs),
        wallMs: low(low(platform.wallMs, spec.wallMs), wallMs),
        memoryBytes: low(platform.memoryBytes, spec.memoryMb === undefined ? undefined : spec.memoryMb * 1024 * 1024),
        outputBytes: low(platform.outputBytes, spec.outputBytes),
      };
    },
    /** Loading a bundle to check it: its top level, with the wall time as its CPU budget (a cold worker may be slow). */
    forDeploy: (): InvocationLimits => ({ ...platform, cpuMs: Math.max(platform.cpuMs, platform.wallMs), logLines: 0 }),
  };
}
export type Limits = ReturnType<typeof makeLimits>;
