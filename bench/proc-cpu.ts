import { readFileSync } from 'node:fs';

/**
 * CPU time of a process (utime + stime, in ms: Linux clock ticks of 10 ms), read from /proc; null
 * when the process is gone or /proc is not there. The benches count CPU per request with it,
 * which a loaded machine disturbs much less than requests/s.
 */
export function processCpuMs(pid: number | undefined, file = `/proc/${pid}/stat`): number | null {
  if (!pid) return null;
  try {
    const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** CPU time of a process's main thread alone (ms): what one core must do in series, the rest being other threads. */
export function mainThreadCpuMs(pid: number | undefined): number | null {
  return pid ? processCpuMs(pid, `/proc/${pid}/task/${pid}/stat`) : null;
}

/** The CPU time of several processes together, in ms (the gone ones count 0). */
export const processesCpuMs = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + (processCpuMs(pid) ?? 0), 0);
