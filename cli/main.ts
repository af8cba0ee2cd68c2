#!/usr/bin/env node
import { createInterface } from 'node:readline/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ApiError, makeApi, type Api } from './api.js';
import { configPath, effectiveConfig, readConfigFile, writeConfigFile } from './config-file.js';
import { tailEvents } from './events-tail.js';
import { exportRecords } from './records-export.js';
import { importRecords, type Format } from './records-import.js';
import { appsCommands } from './apps-commands.js';

const out = (line: string) => process.stdout.write(`${line}\n`);
const positive = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const formatOption = () => new Option('--format <format>', 'csv or ndjson (default: from the file name, else csv)').choices(['csv', 'ndjson']);
const formatOf = (given: string | undefined, path: string): Format => (given as Format | undefined) ?? (/\.(nd)?jsonl?$/i.test(path) ? 'ndjson' : 'csv');

/** An API client from the config file and the environment; selects PLATFORM_COMPANY on the session when it overrides the file. */
async function api(): Promise<Api> {
  const config = effectiveConfig();
  if (!config.token) throw new Error(`not logged in: run \`platform login\` (or set PLATFORM_TOKEN); config file ${configPath()}`);
  const client = makeApi(config.url!, config.token);
  const fileCompany = readConfigFile(configPath()).company;
  if (config.company && config.company !== fileCompany) await client.call('POST', `/api/v2/auth/companies/${config.company}/select`);
  return client;
}

async function prompt(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export function program(): Command {
  const cli = new Command('platform').description('Command line of the platform: sign in, pick a company, move records in and out, follow the event log, rebuild read models.').showHelpAfterError();

  cli
    .command('login')
    .description('Signs in and keeps the token in the config file')
    .option('--url <url>', 'server URL (default: PLATFORM_URL, the config file, http://127.0.0.1:3000)')
    .option('--email <email>', 'account e-mail')
    .option('--password <password>', 'password (default: PLATFORM_PASSWORD, else asked)')
    .action(async (o: { url?: string; email?: string; password?: string }) => {
      const url = o.url ?? effectiveConfig().url!;
      const email = o.email ?? process.env.PLATFORM_EMAIL ?? (await prompt('e-mail: '));
      const password = o.password ?? process.env.PLATFORM_PASSWORD ?? (await prompt('password: '));
      const client = makeApi(url);
      try {
        const { data } = await client.call<{ token: string }>('POST', '/api/v2/auth/login', { email, password });
        writeConfigFile({ ...readConfigFile(), url, token: data.token, email, company: undefined });
        out(`logged in to ${url} as ${email}; select a company with \`platform companies select <uuid>\``);
      } finally {
        await client.close();
      }
    });

  const companies = cli.command('companies').description('The companies of the signed-in user');
  companies
    .command('select <companyUuid>')
    .description('Selects the company every later command acts for')
    .action(async (companyUuid: string) => {
      const client = await api();
      try {
        await client.call('POST', `/api/v2/auth/companies/${encodeURIComponent(companyUuid)}/select`);
        writeConfigFile({ ...readConfigFile(), company: companyUuid });
        out(`company ${companyUuid} selected`);
      } finally {
        await client.close();
      }
    });

  const records = cli.command('records').description("An object's records");
  records
    .command('import <objectName> <file>')
    .description("Creates a record per row of a CSV (a header of property names; a uuid column is the record's uuid) or NDJSON file ('-': stdin); rejected rows are listed with their errors")
    .addOption(formatOption())
    .option('--concurrency <n>', 'creates in flight', positive, 16)
    .option('--rejects <file>', 'also write the rejected rows with their errors there (NDJSON)')
    .option('--quiet', 'no progress bar')
    .action(async (objectName: string, file: string, o: { format?: string; concurrency: number; rejects?: string; quiet?: boolean }) => {
      const client = await api();
      try {
        const r = await importRecords(client, { objectName, path: file, format: formatOf(o.format, file), concurrency: o.concurrency, rejectsPath: o.rejects, quiet: o.quiet });
        out(`imported ${r.imported} of ${r.rows} rows in ${r.seconds.toFixed(1)} s (${Math.round(r.imported / Math.max(r.seconds, 0.001))} rows/s); rejected ${r.rejected.length}`);
        for (const x of r.rejected) out(`  row ${x.row}: ${x.error}`);
        if (r.rejected.length > 0) process.exitCode = 1;
      } finally {
        await client.close();
      }
    });
  records
    .command('export <objectName> [file]')
    .description("Writes the object's records, oldest first, as CSV (uuid, then a column per property) or NDJSON, to a file or stdout")
    .addOption(formatOption())
    .option('--quiet', 'no progress bar')
    .action(async (objectName: string, file: string | undefined, o: { format?: string; quiet?: boolean }) => {
      const client = await api();
      try {
        const path = file ?? '-';
        const r = await exportRecords(client, { objectName, path, format: formatOf(o.format, path), quiet: o.quiet });
        if (path !== '-') out(`exported ${r.rows} records in ${r.seconds.toFixed(1)} s`);
      } finally {
        await client.close();
      }
    });

  cli
    .command('events')
    .description("The company's event log (ADMIN)")
    .command('tail')
    .description('Prints the last events, and with --follow the new ones as they come')
    .option('--request-id <id>', 'only the events of this request')
    .option('--type <type>', 'only events of this type')
    .option('-n, --last <n>', 'how many of the latest to print first', positive, 20)
    .option('-f, --follow', 'keep printing new events')
    .option('--poll <ms>', 'unused: --follow reads the live feed (kept for scripts that pass it)', positive, 1000)
    .option('--json', 'one JSON object per line')
    .action(async (o: { requestId?: string; type?: string; last: number; follow?: boolean; poll: number; json?: boolean }) => {
      const client = await api();
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      try {
        await tailEvents(client, { requestId: o.requestId, type: o.type, last: o.last, follow: Boolean(o.follow), json: Boolean(o.json), signal: stop.signal }, out);
      } finally {
        await client.close();
      }
    });

  appsCommands(cli, api, out);

  cli
    .command('rebuild')
    .description('Rebuilds every read model from the event log, with progress (the database of DATABASE_URL or DATA_DIR; stop the API servers first)')
    .option('--quiet', 'no progress')
    .action(async (o: { quiet?: boolean }) => {
      const { rebuild } = await import('./rebuild.js');
      await rebuild(out, o.quiet);
    });

  return cli;
}

try {
  await program().parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`platform: ${err instanceof ApiError ? err.describe() : (err as Error).message}\n`);
  process.exitCode = process.exitCode || 2;
}
