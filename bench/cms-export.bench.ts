/**
 * `npm run bench:cms-export`: a site leaving one company and coming into another. For PostgreSQL
 * when DATABASE_URL is set (and PGlite unless BENCH_ONLY=postgres): starts the server as its own
 * process on a fresh database, builds a site through the API in company A (BENCH_PAGES pages, 300
 * by default, each with three modules, two in three published, a tenth translated into a second
 * environment, a menu of 50 page links), makes company B with one record per page, then times,
 * one request each: the export (and the document's size), the import's dry run, and the import
 * (pages/s). Prints a table; not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { benchHttp } from './bench-http.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 300);
const ONLY = process.env.BENCH_ONLY; // 'pglite' | 'postgres'
const PORT = 3980 + (process.pid % 9);
const { request, must, startServer, close } = benchHttp(PORT, 8);

async function company(label: string, suffix: string) {
  const user = await must({ method: 'POST', path: '/api/v2/auth/register', body: { email: `${label}-${suffix}@example.test`, password: 'correct horse battery staple', firstname: 'B', lastname: 'B' } }, '');
  const token: string = user.token;
  const c = await must({ method: 'POST', path: '/api/v2/companies', body: { name: `CMS ${label}`, subdomain: `cms-${label}-${suffix}` } }, token);
  await must({ method: 'POST', path: `/api/v2/auth/companies/${c.uuid}/select` }, token);
  const object = await must({ method: 'POST', path: '/api/v2/objects', body: { name: 'job', label: 'Job' } }, token);
  await must({ method: 'POST', path: `/api/v2/objects/${object.uuid}/properties`, body: { name: 'headline', label: 'Headline', type: 'string', format: 'text' } }, token);
  await must({ method: 'POST', path: `/api/v2/traits/${object.uuid}/Page`, body: { titleProperty: 'headline' } }, token);
  return { token, uuid: c.uuid as string };
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await f();
  return [r, performance.now() - t0];
}

async function bench(label: string, env: Record<string, string>) {
  process.stdout.write(`\n${label}: setting up ${PAGES} pages...\n`);
  const server = await startServer({ ...env, CMS_IMPORT_BODY_LIMIT_BYTES: String(64 * 1024 * 1024) });
  try {
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const a = await company('a', suffix);
    await must({ method: 'POST', path: '/api/v2/cms/environments', body: { key: 'production' } }, a.token);
    await must({ method: 'POST', path: '/api/v2/cms/environments', body: { key: 'germany', htmlLang: 'de' } }, a.token);
    await must({ method: 'POST', path: '/api/v2/modules', body: { name: 'hero', label: 'Hero', fields: [{ name: 'heading', type: 'text' }, { name: 'body', type: 'richtext' }] } }, a.token);
    await must({ method: 'POST', path: '/api/v2/modules', body: { name: 'cta', label: 'CTA', fields: [{ name: 'label', type: 'text' }, { name: 'href', type: 'link' }] } }, a.token);
    const pages: string[] = [];
    const setupStart = performance.now();
    for (let i = 0; i < PAGES; i++) {
      const record = await must({ method: 'POST', path: '/api/v2/job', body: { properties: { headline: `Job ${i}` } } }, a.token);
      const page = await must({ method: 'POST', path: '/api/v2/webpages', body: { recordUuid: record.uuid, environment: 'production' } }, a.token);
      await must({
        method: 'POST',
        path: `/api/v2/webpages/v2/pages/${record.uuid}/patch`,
        body: { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { module: 'hero', fields: { heading: `Job ${i}`, body: '<p>' + 'Lorem ipsum dolor sit amet. '.repeat(20) + '</p>' } } }, { op: 'addModule', module: { module: 'cta', fields: { label: 'Apply', href: '/apply' } } }, { op: 'addModule', module: { module: 'hero', fields: { heading: 'More' } } }] },
      }, a.token);
      if (i % 3 !== 2) await must({ method: 'PUT', path: `/api/v2/webpages/${page.uuid}/publish` }, a.token);
      if (i % 10 === 0) await must({ method: 'POST', path: `/api/v2/webpages/v2/pages/${record.uuid}/environments/germany/translate?locale=en` }, a.token);
      pages.push(page.uuid);
    }
    const setupMs = performance.now() - setupStart;
    await must({ method: 'POST', path: '/api/v2/webmenus', body: { name: 'main', environment: 'production', items: pages.slice(0, 50).map((uuid, i) => ({ label: `Job ${i}`, pageUuid: uuid })) } }, a.token);
    const b = await company('b', suffix);
    const [doc, exportMs] = await timed(() => must({ method: 'GET', path: '/api/v2/cms/export' }, a.token));
    const records: Record<string, string> = {};
    for (const p of doc.pages as { recordUuid: string }[]) records[p.recordUuid] ??= (await must({ method: 'POST', path: '/api/v2/job', body: { properties: { headline: 'Imported' } } }, b.token)).uuid;
    const body = { document: doc, records };
    const [dry, dryMs] = await timed(() => request({ method: 'POST', path: '/api/v2/cms/import?dryRun=true', body }, b.token));
    const [done, importMs] = await timed(() => request({ method: 'POST', path: '/api/v2/cms/import?dryRun=false', body }, b.token));
    if (dry.status !== 200 || done.status !== 201) throw new Error(`import answered ${dry.status} / ${done.status}: ${JSON.stringify(done.body).slice(0, 500)}`);
    const size = Buffer.byteLength(JSON.stringify(doc));
    const n = (doc.pages as unknown[]).length;
    process.stdout.write(`  site: ${n} pages (${doc.translations.length} translations), ${doc.menus.length} menu, document ${(size / 1024).toFixed(0)} KiB\n`);
    process.stdout.write(`  export:            ${exportMs.toFixed(0).padStart(7)} ms\n`);
    process.stdout.write(`  import, dry run:   ${dryMs.toFixed(0).padStart(7)} ms  (${done.body.data.changes.length} changes)\n`);
    process.stdout.write(`  import:            ${importMs.toFixed(0).padStart(7)} ms  (${(n / (importMs / 1000)).toFixed(0)} pages/s, ${JSON.stringify(done.body.data.counts)})\n`);
    // The same run's reference: building the site through the API, one request after another
    // (record, page, patch, publish for 2 in 3, a translation for 1 in 10), per page of A.
    const perPageSetup = setupMs / PAGES;
    process.stdout.write(`  reference: the site built through the API, ${perPageSetup.toFixed(1)} ms a page; the import ${(importMs / n).toFixed(1)} ms a page (${(perPageSetup / (importMs / n)).toFixed(1)}x)\n`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

if (ONLY !== 'postgres') {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-cms-export-'));
  try {
    await bench('PGlite (in the server process)', { DATA_DIR: dir, DATABASE_URL: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ONLY !== 'pglite') {
  if (!process.env.DATABASE_URL) process.stdout.write('\nPostgreSQL: skipped (set DATABASE_URL to measure it)\n');
  else {
    const name = `platform_bench_cms_export_${process.pid}`;
    const admin = createPostgresDb({ connectionString: adminUrl(process.env.DATABASE_URL), max: 1 });
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    try {
      await bench('PostgreSQL', { DATABASE_URL: databaseUrlFor(process.env.DATABASE_URL, name) });
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    }
  }
}
close();
