import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

describe('npm start on the embedded default', () => {
  it('answers GET /api/v2/dev/ (401: DEVELOPER-only) with no configuration, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-start-'));
    const port = await freePort();
    const env = { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' } as NodeJS.ProcessEnv;
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
    try {
      const started = Date.now();
      let body: { status?: number } | undefined;
      // Generous: a loaded CI machine is slow; the start time itself is a figure, not a test.
      while (Date.now() - started < 60_000 && !body) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/api/v2/dev/`);
          body = (await res.json()) as { status?: number };
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      expect(body?.status, stderr).toBe(401);
      expect(existsSync(join(dataDir, '.platform.lock'))).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(join(dataDir, '.platform.lock'))).toBe(false);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
