import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObjectWith, aRecord, data, unique } from '../records/records-fixtures.js';

export { call, data, expectErrorBody, unique } from '../records/records-fixtures.js';

const json = (name: string) => ({ name, type: 'json' });
/** The module definitions the tests' pages use. */
export const testModules = [
  { name: 'text', label: 'Text', fields: [{ name: 'body', type: 'text' }, { name: 'tone', type: 'select', options: ['calm', 'loud'] }, ...['n', 'i', 't', 'a', 'writer', 'r'].map(json)] },
  { name: 'hero', label: 'Hero', fields: [{ name: 'heading', type: 'text' }, { name: 'body', type: 'text' }, ...['h', 'i', 'a', 't', 'n'].map(json)] },
  { name: 'banner', label: 'Banner', fields: [] },
  { name: 'footer', label: 'Footer', fields: [{ name: 'year', type: 'number', required: true }] },
];

/** An environment (with the test modules, when it is new), an object with the Page trait (title from `headline`) and one record of it. */
export async function aSite(app: FastifyInstance, who: TestTenant, opts: { env?: string } = {}) {
  const env = opts.env ?? 'production';
  const existing = (await data(app, who, 'GET', '/api/v2/cms/environments')) as { key: string }[];
  if (!existing.some((e) => e.key === env)) {
    await data(app, who, 'POST', '/api/v2/cms/environments', { key: env, label: env });
    for (const module of testModules) await data(app, who, 'POST', '/api/v2/modules', module);
  }
  const object = await anObjectWith(app, who, { headline: { type: 'string', format: 'text' } }, unique('job'));
  await data(app, who, 'POST', `/api/v2/traits/${object.uuid}/Page`, { titleProperty: 'headline' });
  return { env, object };
}

/** A record of the site's object and its page (returns the CmsPageDTO). */
export async function aPage(app: FastifyInstance, who: TestTenant, site: { env: string; object: { name: string } }, body: Record<string, unknown> = {}) {
  const record = await aRecord(app, who, site.object.name, { headline: `Hello ${unique('w')}` });
  const page = await data(app, who, 'POST', '/api/v2/webpages', { recordUuid: record.uuid, environment: site.env, ...body });
  return { record, page };
}

export const patchUrl = (recordUuid: string) => `/api/v2/webpages/v2/pages/${recordUuid}/patch`;

export type Site = Awaited<ReturnType<typeof aSite>>;

/**
 * The one setup of a webpages test file: the app on a fresh test database (a cheap password hash,
 * reactors off unless `env` turns them on), an owner signed up with a company (its subdomain
 * `unique(subdomain)` when one is asked for) and a site (`aSite`), made before the file's tests
 * and closed after them.
 */
export function useCmsSite(opts: { env?: Record<string, string>; subdomain?: string } = {}) {
  let t: TestApp | undefined;
  let owner: TestTenant | undefined;
  let site: Site | undefined;
  const subdomain = opts.subdomain === undefined ? undefined : unique(opts.subdomain).replace(/_/g, '-');
  beforeAll(async () => {
    t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', ...opts.env });
    owner = await signUpWithCompany(t.app, { subdomain });
    site = await aSite(t.app, owner);
  });
  afterAll(async () => t?.close());
  return {
    get t() {
      return t!;
    },
    get app() {
      return t!.app;
    },
    get owner() {
      return owner!;
    },
    get site() {
      return site!;
    },
    /** The owner's company subdomain (only when `opts.subdomain` asked for one). */
    get subdomain() {
      return subdomain!;
    },
  };
}
