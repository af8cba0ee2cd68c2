import type { Command } from 'commander';
import type { Api } from './api.js';
import { buildProject, initProject, readProject, writeAppUuid } from './apps-project.js';

type Out = (line: string) => void;
const appOf = (dir: string, given?: string) => {
  const uuid = given ?? readProject(dir).appUuid;
  if (!uuid) throw new Error('no app: pass --app <appUuid>, or set appUuid in platform-app.json');
  return uuid;
};
const parseInput = (text: string | undefined) => {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error('--input must be JSON');
  }
};

interface Job {
  jobId: string;
  status: string;
  attempts: number;
  result: unknown;
  error: { code: string; message: string } | null;
}

/** `platform apps ...`: the app developer's commands (spec 1.17; docs/apps.md, "The app developer's CLI"). */
export function appsCommands(cli: Command, api: () => Promise<Api>, out: Out) {
  const apps = cli.command('apps').description("An app's functions: scaffold, build, deploy, roll back, invoke, run as jobs, read the runtime logs");
  const withApi = async <T>(fn: (client: Api) => Promise<T>) => {
    const client = await api();
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  };

  apps
    .command('init [dir]')
    .description('Scaffolds a project: platform-app.json (the manifest), src/index.js (a function) and its test')
    .option('--app <appUuid>', 'the app the project deploys to')
    .action((dir = '.', o: { app?: string }) => {
      for (const f of initProject(dir, o.app ?? null)) out(`created ${f}`);
      out('next: `platform apps build`, then `platform apps deploy`');
    });

  apps
    .command('build [dir]')
    .description('Bundles the functions with esbuild (CommonJS, dist/bundle.js) and checks the manifest against the exports')
    .action(async (dir = '.') => {
      const { code, path, project } = await buildProject(dir);
      out(`built ${path} (${Buffer.byteLength(code)} bytes): ${project.manifest.functions.map((f) => f.name).join(', ')}`);
    });

  apps
    .command('deploy [dir]')
    .description('Builds and deploys: the new deploy becomes the active one')
    .option('--app <appUuid>', 'the app (default: platform-app.json)')
    .option('--note <note>', 'a note kept with the deploy')
    .action(async (dir = '.', o: { app?: string; note?: string }) => {
      const appUuid = appOf(dir, o.app);
      if (o.app) writeAppUuid(dir, o.app);
      const { code, project } = await buildProject(dir);
      const { data } = await withApi((c) => c.call<{ uuid: string; number: number }>('POST', `/api/v2/apps/${appUuid}/deploys`, { manifest: project.manifest, code, note: o.note ?? '' }));
      out(`deployed #${data.number} ${data.uuid} (active)`);
    });

  apps
    .command('deploys [dir]')
    .description('The deploy history, newest first')
    .option('--app <appUuid>', 'the app (default: platform-app.json)')
    .action(async (dir = '.', o: { app?: string }) => {
      const { data } = await withApi((c) => c.call<{ uuid: string; number: number; active: boolean; createdAt: number; note: string }[]>('POST', `/api/v2/apps/${appOf(dir, o.app)}/deploys/index`, { limit: 100 }));
      for (const d of data) out(`#${d.number} ${d.uuid} ${new Date(d.createdAt).toISOString()}${d.active ? ' active' : ''}${d.note ? ` ${d.note}` : ''}`);
    });

  apps
    .command('rollback <deploy> [dir]')
    .description('Makes an earlier deploy the active one again (its uuid, or #number)')
    .option('--app <appUuid>', 'the app (default: platform-app.json)')
    .action(async (deploy: string, dir = '.', o: { app?: string }) => {
      const appUuid = appOf(dir, o.app);
      await withApi(async (c) => {
        let uuid = deploy;
        if (/^#?\d+$/.test(deploy)) {
          const { data } = await c.call<{ uuid: string; number: number }[]>('POST', `/api/v2/apps/${appUuid}/deploys/index`, { limit: 100 });
          const hit = data.find((d) => d.number === Number(deploy.replace('#', '')));
          if (!hit) throw new Error(`no deploy ${deploy}`);
          uuid = hit.uuid;
        }
        const { data } = await c.call<{ uuid: string; number: number }>('POST', `/api/v2/apps/${appUuid}/deploys/${uuid}/rollback`);
        out(`rolled back to #${data.number} ${data.uuid} (active)`);
      });
    });

  apps
    .command('invoke <name> [dir]')
    .description("Runs a function of the active deploy now, for the selected company; prints its result (exit 1 when it failed)")
    .option('--app <appUuid>', 'the app (default: platform-app.json)')
    .option('--input <json>', 'the input, JSON')
    .action(async (name: string, dir = '.', o: { app?: string; input?: string }) => {
      const { data } = await withApi((c) => c.call<{ status: string; result: unknown; error: { code: string; message: string } | null; logs: { level: string; message: string }[] }>('POST', `/api/v2/apps/${appOf(dir, o.app)}/installation/functions/${encodeURIComponent(name)}/invoke`, { input: parseInput(o.input) }));
      for (const l of data.logs) out(`[${l.level}] ${l.message}`);
      if (data.status === 'SUCCEEDED') out(JSON.stringify(data.result));
      else {
        out(`FAILED ${data.error?.code}: ${data.error?.message}`);
        process.exitCode = 1;
      }
    });

  apps
    .command('job <name> [dir]')
    .description('Enqueues a function call as a job; with --wait, waits for it and prints its result')
    .option('--app <appUuid>', 'the app (default: platform-app.json)')
    .option('--input <json>', 'the input, JSON')
    .option('--key <idempotencyKey>', 'the same key enqueues once')
    .option('--wait', 'wait until it SUCCEEDED or FAILED')
    .action(async (name: string, dir = '.', o: { app?: string; input?: string; key?: string; wait?: boolean }) => {
      const appUuid = appOf(dir, o.app);
      await withApi(async (c) => {
        let { data: job } = await c.call<Job>('POST', `/api/v2/apps/${appUuid}/installation/jobs`, { functionName: name, input: parseInput(o.input), ...(o.key ? { idempotencyKey: o.key } : {}) });
        out(`job ${job.jobId} ${job.status}`);
        while (o.wait && job.status !== 'SUCCEEDED' && job.status !== 'FAILED') {
          await new Promise((r) => setTimeout(r, 250));
          job = (await c.call<Job>('GET', `/api/v2/apps/${appUuid}/installation/jobs/${job.jobId}`)).data;
        }
        if (!o.wait) return;
        out(`job ${job.jobId} ${job.status} after ${job.attempts} attempt(s)`);
        if (job.status === 'SUCCEEDED') out(JSON.stringify(job.result));
        else {
          out(`${job.error?.code}: ${job.error?.message}`);
          process.exitCode = 1;
        }
      });
    });

  apps
    .command('logs [dir]')
    .description("The app's runtime logs in the selected company; with --follow, new lines as they come (Server-Sent Events)")
    .option('--app <appUuid>', 'the app (default: platform-app.json)')
    .option('-n, --last <n>', 'how many of the latest lines first', (v) => Number(v), 20)
    .option('-f, --follow', 'keep printing new lines')
    .action(async (dir = '.', o: { app?: string; last: number; follow?: boolean }) => {
      const appUuid = appOf(dir, o.app);
      type Line = { seq: number; at: number; level: string; functionName: string; message: string };
      const show = (l: Line) => out(`${new Date(l.at).toISOString()} ${l.level.padEnd(5)} ${l.functionName}: ${l.message}`);
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      await withApi(async (c) => {
        const live = o.follow ? await c.stream(`/api/v2/apps/${appUuid}/runtime/logs/stream`, { signal: stop.signal }) : undefined;
        const { data } = await c.call<Line[]>('GET', `/api/v2/apps/${appUuid}/runtime/logs?limit=${Math.min(100, Math.max(1, o.last))}`);
        const first = [...data].reverse();
        first.forEach(show);
        if (!live) return;
        const shown = new Set(first.map((l) => l.seq));
        try {
          for await (const e of live) if (e.event === 'log') {
            const line = JSON.parse(e.data) as Line;
            if (!shown.has(line.seq)) show(line);
          }
        } catch (err) {
          if (!stop.signal.aborted) throw err;
        }
      });
    });
}
