import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  exited: Promise<number | null>;
}

/**
 * Starts a server process (`command` in the repository root; default: the TypeScript sources
 * through tsx) on a free port and resolves once it prints the URL it listens on.
 */
export async function startServerProcess(env: Record<string, string>, command: string[] = [process.execPath, '--import', 'tsx', 'src/main.ts']): Promise<ServerProcess> {
  const full = { ...process.env, PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_ENABLED: 'false', ...env } as NodeJS.ProcessEnv;
  if (!env.DATABASE_URL) delete full.DATABASE_URL;
  const child = spawn(command[0]!, command.slice(1), { cwd: root, env: full, stdio: 'pipe' });
  let out = '';
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no "listening on" within 90 s:\n${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += String(d);
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
  return { child, url, output: () => out, exited };
}
