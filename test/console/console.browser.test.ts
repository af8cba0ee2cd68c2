// The web console in a real browser (Debian's Chromium through puppeteer-core) against a real
// server process: sign in, create an object and a record, find it by a filter, edit it, open its
// history, view it as of the first revision, restore that revision, and trace the edit's
// requestId to its events; save a view and open it after a reload. A failing test leaves a
// screenshot in test-output/screenshots/.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatformClient, type PlatformClient } from '../../client/index.js';
import { buildConsole } from '../../scripts/build-console.mjs';
import { launchBrowser, screenshot } from '../support/browser.js';
import { root, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { newTestDatabaseUrl, onPostgres } from '../support/test-db.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

let server: ServerProcess;
let browser: Browser;
let page: Page;
let dataDir = '';
let api: PlatformClient;
let rx: Receiver;
const email = `console-${Date.now()}@example.test`;
const password = 'correct horse battery staple';
const companyName = `Console Co ${Date.now() % 100_000}`;

beforeAll(async () => {
  await buildConsole(root);
  let env: Record<string, string>;
  if (onPostgres) env = { DATABASE_URL: await newTestDatabaseUrl() };
  else {
    dataDir = mkdtempSync(join(tmpdir(), 'platform-console-'));
    cpSync(inject('pgliteTemplate'), dataDir, { recursive: true });
    env = { DATA_DIR: dataDir };
  }
  const hooks = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' };
  [server, browser, rx] = await Promise.all([startServerProcess({ ...env, ...hooks, PASSWORD_SCRYPT_LOG_N: '10' }), launchBrowser(), startReceiver()]);
  api = createPlatformClient({ baseUrl: server.url });
  await api.post('/api/v2/auth/register', { body: { email, password, firstname: 'Con', lastname: 'Sole' } });
  await api.login(email, password);
  const company = await api.post('/api/v2/companies', { body: { name: companyName, subdomain: `console-${Date.now()}` } });
  await api.selectCompany(company.uuid);
  page = await browser.newPage();
  page.setDefaultTimeout(15_000);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail' && page) {
    const file = await screenshot(page, ctx.task.name).catch((e: unknown) => `(no screenshot: ${String(e)})`);
    console.error(`screenshot of the failing page: ${file}`);
  }
});

afterAll(async () => {
  await browser?.close();
  await rx?.close();
  server?.child.kill('SIGTERM');
  await server?.exited;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const button = (name: string) => page.locator(`::-p-aria([name="${name}"][role="button"])`);
const field = (name: string) => page.locator(`[name="${name}"]`);
const text = (t: string) => page.waitForSelector(`::-p-text(${t})`);
const textOf = (selector: string) => page.$eval(selector, (el) => el.textContent ?? '');

describe('the web console in Chromium', () => {
  it('serves /console with its bundle and a content security policy', async () => {
    const res = await page.goto(`${server.url}/console/`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.waitForSelector('h1');
    expect(await textOf('h1')).toBe('Sign in');
  });

  it('shows the API message and requestId of a failed sign-in, typed from the keyboard alone', async () => {
    await page.focus('[name="email"]');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('password');
    await page.keyboard.type('wrong password!');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid="error"]');
    const requestId = await textOf('[data-testid="error-request-id"]');
    expect(requestId).toMatch(/^[\w.:@-]{8,}$/);
    expect(await textOf('[data-testid="error"]')).toMatch(/HTTP 401/);
  });

  it('signs in, selects the company, creates an object with a property and two records, finds one by a filter', async () => {
    await field('password').fill(password);
    await button('Sign in').click();
    await button(companyName).click();
    await page.waitForSelector('::-p-text(Create object)');
    await field('objectName').fill('book');
    await field('objectLabel').fill('Book');
    await button('Create object').click();
    await page.locator('a::-p-text(book)').click();
    await text('Add property');
    await field('propertyName').fill('title');
    await field('propertyLabel').fill('Title');
    await button('Add property').click();
    await page.waitForSelector('td::-p-text(title)');
    await page.locator('a::-p-text(Records of book)').click();
    await field('new-title').fill('Dune');
    await button('Create record').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="records-total"]')?.textContent?.startsWith('1 records'));
    await field('new-title').fill('Emma');
    await button('Create record').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="records-total"]')?.textContent?.startsWith('2 records'));
    await page.select('[name="filterOperator"]', 'equals');
    await field('filterValue').fill('Dune');
    await button('Add filter').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="records-total"]')?.textContent?.startsWith('1 records'));
    const rows = await page.$$eval('table[aria-label="Records of book"] tbody tr', (trs) => trs.map((tr) => tr.textContent));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('Dune');
  });

  it('edits the record, opens its history, views it as of revision 0, restores that revision', async () => {
    await page.locator('table[aria-label="Records of book"] a::-p-text(Dune)').click();
    await page.waitForSelector('#value-title');
    await field('title').fill('Dune Messiah');
    await button('Save').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="notice"]')?.textContent?.startsWith('Saved'));
    await page.waitForFunction(() => document.querySelector('[data-testid="revision"]')?.textContent === '1');
    await page.waitForFunction(() => document.querySelectorAll('ol[aria-label="History"] > li').length === 2);
    const history = await page.$$eval('ol[aria-label="History"] > li', (lis) => lis.map((li) => li.textContent ?? ''));
    expect(history[0]).toMatch(/#1 RecordUpdated/);
    expect(history[0]).toMatch(/title: Dune → Dune Messiah/);
    expect(history[0]).toContain(email);
    expect(history[1]).toMatch(/#0 RecordCreated/);

    await page.select('[name="asOf"]', '0');
    await button('View as of').click();
    await page.waitForSelector('[data-testid="as-of"]');
    expect(await textOf('table[aria-label="Values as of revision 0"]')).toBe('titleDune');
    await button('Restore revision 0').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="notice"]')?.textContent?.startsWith('Restored the values of revision 0'));
    await page.waitForFunction(() => document.querySelector('[data-testid="revision"]')?.textContent === '2');
    expect(await page.$eval('#value-title', (el) => (el as HTMLInputElement).value)).toBe('Dune');
    await page.waitForFunction(() => document.querySelectorAll('ol[aria-label="History"] > li').length === 3);
    expect(await textOf('ol[aria-label="History"] > li')).toMatch(/#2 RecordUpdated.*title: Dune Messiah → Dune/);
  });

  it("traces the edit's requestId to its events", async () => {
    const links = await page.$$eval('[data-testid="history-request-id"]', (as) => as.map((a) => a.textContent ?? ''));
    expect(links).toHaveLength(3);
    const editRequestId = links[1]!; // newest first: #2 restore, #1 the edit, #0 the create
    const uuid = page.url().split('#/record/')[1]!;
    const entries = await api.listGet('/api/v2/records/{uuid}/history', { params: { path: { uuid } } });
    expect(entries.items.find((e) => e.revision === 1)?.requestId).toBe(editRequestId);

    await page.locator(`a::-p-text(${editRequestId})`).click();
    await page.waitForSelector('[data-testid="chain-summary"]');
    expect(await textOf('[data-testid="chain-summary"]')).toMatch(new RegExp(`^1 events with requestId ${editRequestId}`));
    const rows = await page.$$eval('[data-testid="event-row"]', (trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(rows.some((r) => r.includes('RecordUpdated') && r.includes(`record-${uuid}@1`) && r.includes('(this request)'))).toBe(true);
  });

  it('follows the event log live: an event committed after "Follow live" appears at the top', async () => {
    await page.goto(`${server.url}/console/#/events`);
    await page.waitForSelector('table[aria-label="Latest events"]');
    await button('Follow live').click();
    await page.waitForSelector('::-p-aria([name="Stop following"][role="button"])');
    await new Promise((r) => setTimeout(r, 500));
    await api.post('/api/v2/teams', { body: { name: 'Followed live' } });
    await page.waitForFunction(() => document.querySelector('table[aria-label="Latest events"] [data-testid="event-row"]')?.textContent?.includes('TeamCreated'));
    await button('Stop following').click();
  });

  it('saves a view with a filter and two columns, and after a reload opening it shows only the matching records with those columns', async () => {
    const book = (await api.listPost('/api/v2/objects/index', { body: { filters: [{ key: 'name', operator: 'equals', value: 'book' }] } })).items[0]!;
    await api.post('/api/v2/objects/{objectUuid}/properties', { params: { path: { objectUuid: book.uuid } }, body: { name: 'author', label: 'Author', type: 'string', format: 'text' } });
    for (const [title, author] of [['Persuasion', 'Austen'], ['Ubik', 'Dick']]) await api.post('/api/v2/{objectName}/', { params: { path: { objectName: 'book' } }, body: { properties: { title, author } } });

    await page.goto(`${server.url}/console/#/records/book`);
    await page.waitForFunction(() => document.querySelector('[data-testid="records-total"]')?.textContent?.startsWith('4 records'));
    await page.select('[name="filterKey"]', 'author');
    await page.select('[name="filterOperator"]', 'equals');
    await field('filterValue').fill('Austen');
    await button('Add filter').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="records-total"]')?.textContent?.startsWith('1 records'));
    await button('Columns').click();
    await page.click('[name="column-title"]');
    await page.click('[name="column-updatedAt"]');
    await page.click('[name="column-createdAt"]');
    await field('width-author').fill('180');
    await field('viewName').fill('Austen books');
    await button('Save as new view').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="view-notice"]')?.textContent === 'Created view Austen books');
    const saved = (await api.listPost('/api/v2/views/index/{objectUuid}', { params: { path: { objectUuid: book.uuid } }, body: {} })).items;
    expect(saved.map((v) => [v.name, v.sharing, v.columns, v.filters])).toEqual([['Austen books', 'personal', [{ key: 'author', width: 180 }, { key: 'createdAt', width: null }], [{ key: 'author', operator: 'equals', value: 'Austen' }]]]);

    await page.reload();
    await page.waitForFunction(() => document.querySelector('[data-testid="records-total"]')?.textContent?.startsWith('4 records'));
    await page.waitForSelector('select[name="view"] option:nth-child(2)');
    await page.select('[name="view"]', saved[0]!.uuid);
    await page.waitForFunction(() => document.querySelector('[data-testid="records-total"]')?.textContent?.startsWith('1 records'));
    const table = 'table[aria-label="Records of book"]';
    expect(await page.$$eval(`${table} thead th`, (ths) => ths.map((th) => th.textContent))).toEqual(['Record', 'Author', 'Created']);
    const rows = await page.$$eval(`${table} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.slice(0, 2)).toEqual(['Persuasion', 'Austen']);
    expect(rows[0]![2]).toMatch(/^\d{4}-\d\d-\d\d /);
    expect(await page.$eval(`${table} thead th:nth-child(2)`, (th) => (th as HTMLElement).style.width)).toBe('180px');

    // Save view writes the table into the open view; Delete view soft-deletes it.
    await page.select('[name="limit"]', '10');
    await button('Save view Austen books').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="view-notice"]')?.textContent === 'Saved view Austen books');
    const view = await api.get('/api/v2/views/{uuid}', { params: { path: { uuid: saved[0]!.uuid } } });
    expect([view.pageSize, view.columns.map((c) => c.key)]).toEqual([10, ['author', 'createdAt']]);
    await button('Delete view Austen books').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="view-notice"]')?.textContent === 'Deleted view Austen books');
    expect((await api.listPost('/api/v2/views/index/{objectUuid}', { params: { path: { objectUuid: book.uuid } }, body: {} })).total).toBe(0);
    await page.waitForFunction(() => document.querySelector('[data-testid="records-total"]')?.textContent?.startsWith('4 records'));
  });

  it("shows a webhook's deliveries with their outcomes, redelivers one, and restores a webpage's revision", async () => {
    // A site with the Page trait, a webhook on its records, a record, its page and one edit.
    await api.post('/api/v2/cms/environments', { body: { key: 'production', label: 'Production' } });
    await api.post('/api/v2/modules', { body: { name: 'hero', label: 'Hero', fields: [{ name: 'heading', type: 'text' }] } });
    const job = await api.post('/api/v2/objects', { body: { name: 'job', label: 'Job' } });
    await api.post('/api/v2/objects/{objectUuid}/properties', { params: { path: { objectUuid: job.uuid } }, body: { name: 'headline', label: 'Headline', type: 'string', format: 'text' } });
    await api.post('/api/v2/traits/{objectUuid}/{traitName}', { params: { path: { objectUuid: job.uuid, traitName: 'Page' } }, body: { titleProperty: 'headline' } });
    await api.post('/api/v2/webhooks', { body: { url: `${rx.url}/jobs`, secret: 'a secret of some length', topic: 'record.job.created', label: 'Jobs hook' } });
    const record = await api.post('/api/v2/{objectName}/', { params: { path: { objectName: 'job' } }, body: { properties: { headline: 'Cook wanted' } } });
    await api.post('/api/v2/webpages', { body: { recordUuid: record.uuid, environment: 'production' } });
    await api.post('/api/v2/webpages/v2/pages/{recordUuid}/patch', { params: { path: { recordUuid: record.uuid } }, body: { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { module: 'hero', fields: { heading: 'Hi' } } }] } as never });

    await page.locator('a::-p-text(Webhooks)').click();
    await button('Jobs hook').click();
    await page.waitForFunction(() => [...document.querySelectorAll('table[aria-label="Deliveries"] tbody tr')].some((tr) => tr.textContent?.includes('succeeded')), { timeout: 20_000 }).catch(async () => {
      // The delivery may land after the first load: open the webhook again.
      await button('Jobs hook').click();
      await page.waitForFunction(() => [...document.querySelectorAll('table[aria-label="Deliveries"] tbody tr')].some((tr) => tr.textContent?.includes('succeeded')));
    });
    expect(await page.$eval('figure.chart svg', (svg) => svg.getAttribute('aria-label'))).toMatch(/succeeded [1-9]/);
    await button('Redeliver').click();
    await text('Redelivery queued');

    await page.locator('a::-p-text(Charts)').click();
    const today = new Date().toISOString().slice(0, 10);
    await page.waitForSelector(`svg[aria-label*="${today}"]`);
    const perDay = await page.$eval(`svg[aria-label*="${today}"]`, (svg) => svg.getAttribute('aria-label') ?? '');
    expect(Number(new RegExp(`${today} (\\d+)`).exec(perDay)?.[1])).toBeGreaterThan(10);

    await page.goto(`${server.url}/console/#/pages/${record.uuid}?locale=en`);
    await page.waitForFunction(() => document.querySelectorAll('ol[aria-label="Revisions"] > li').length === 2);
    await button('Restore #0').click();
    await page.waitForFunction(() => document.querySelectorAll('ol[aria-label="Revisions"] > li').length === 3);
    expect(await textOf('ol[aria-label="Revisions"] > li')).toMatch(/#2 restored from #0/);
  });
});
