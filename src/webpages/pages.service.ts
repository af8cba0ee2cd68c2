import { randomUUID } from 'node:crypto';
import { DomainError, invalid, notFound } from '../../aggregates/kernel/errors.js';
import { pageDecider, type PageCommand, type PageState } from '../../aggregates/page/page.decider.js';
import { pageStream, type StoredProtection } from '../../aggregates/page/page.events.js';
import type { ModuleCatalogue } from '../../aggregates/page/page.modules.js';
import { SLUG, type PagePatchInput } from '../../aggregates/page/page.patch.js';
import { defaultEnvironment, environmentByKey, type EnvironmentRow } from '../../read-models/cms-environments.queries.js';
import { pageByUuid, pageExtras, pageOfRecord, pageOfRecordIn, pageOfRecordWithExtras, publicationOf, slugInUse, type PageExtras, type PageRow } from '../../read-models/pages.queries.js';
import { getRecord } from '../../read-models/records.queries.js';
import { traitOf } from '../../read-models/traits.queries.js';
import type { PageConfig } from '../../aggregates/trait/trait.schemas.js';
import { makePasswordHasher } from '../auth/passwords.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import { cachedDefaultEnvironment } from './cms-cache.js';
import { pageHeads, type PageHead } from './page-heads.js';
import { toCmsPage, type CmsPage, type CreatePageBody, type PageView, type ProtectionInput, type UpdatePageBody } from './pages.schemas.js';

export const seconds = (ms: number) => Math.floor(ms / 1000);

/** A slug made from a title: lowercase ASCII words joined by single hyphens. */
export function slugify(text: string): string {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/g, '');
  return s || 'page';
}

const stateOf = (row: PageRow): PageState => ({
  exists: true,
  info: { pageUuid: row.page_uuid, recordUuid: row.record_uuid, objectUuid: row.object_uuid, objectName: row.object_name, environment: row.environment, locale: row.locale, template: row.template },
  document: row.document,
  protection: row.protection,
  publication: publicationOf(row),
});

export const viewOfState = (s: PageState): PageView => ({
  pageUuid: s.info!.pageUuid,
  recordUuid: s.info!.recordUuid,
  objectName: s.info!.objectName,
  environment: s.info!.environment,
  locale: s.info!.locale,
  template: s.info!.template,
  document: s.document,
  protection: s.protection,
  publication: s.publication,
});

export const viewOfRow = (row: PageRow): PageView => viewOfState(stateOf(row));

const slugTaken = (slug: string, environment: string, locale: string) =>
  invalid('body.slug', `slug "${slug}" is taken in environment ${environment} (${locale})`, 'Choose another slug: a slug is unique per environment and locale', 'INVALID_VALUE');

/** How many fresh module ids a batch may need: one per module it adds without an id. */
const idsNeeded = (patches: readonly PagePatchInput[]) => patches.reduce((n, p) => n + (p.op === 'addModule' ? 1 : 0) + (p.op === 'replaceModules' ? (p.modules?.length ?? 0) : 0), 0);

/**
 * Webpages of the selected company: create, read, change, patch, restore, publish. Another
 * company's page is the same 404 as a missing one.
 */
export function makePagesService(deps: { db: Db; store: EventStore; passwordLogN: number; catalogue?: (tenant: string, userUuid: string | null) => Promise<ModuleCatalogue | null> }) {
  const { db, store } = deps;
  const hasher = makePasswordHasher({ logN: deps.passwordLogN });
  const catalogueOf = deps.catalogue ?? (async () => null);
  const heads = pageHeads();
  const defaultKey = (tenant: string) => cachedDefaultEnvironment(tenant, async () => (await defaultEnvironment(db, tenant))?.key ?? null);

  async function protectionOf(input: ProtectionInput | undefined): Promise<StoredProtection | undefined> {
    if (!input) return undefined;
    return input.type === 'password' ? { type: 'password', passwordHash: await hasher.hash(input.password) } : input;
  }

  async function found(tenant: string, pageUuid: string): Promise<PageRow> {
    const row = await pageByUuid(db, tenant, pageUuid);
    if (!row) throw notFound('Webpage', pageUuid);
    return row;
  }

  async function environmentOf(tenant: string, key: string | undefined, field: string): Promise<EnvironmentRow> {
    const env = key === undefined ? await defaultEnvironment(db, tenant) : await environmentByKey(db, tenant, key);
    if (env) return env;
    if (key === undefined) throw invalid(field, 'the company has no CMS environment', 'Create one with POST /api/v2/cms/environments (the first one becomes the default)', 'NOT_FOUND');
    throw invalid(field, `${field}: environment ${key} does not exist in the selected company`, 'Use the key of one of GET /api/v2/cms/environments', 'NOT_FOUND');
  }

  /**
   * Runs a command on a page stream; the read-model row (written in the append's transaction) is
   * the snapshot, or on a first attempt `loaded` (a row just read, or a kept head). What it leaves
   * is kept as the page's head.
   */
  async function run(tenant: string, pageUuid: string, command: PageCommand | ((s: PageState) => PageCommand), context: CommandContext, loaded?: PageHead) {
    const recordHasPage = () => {
      throw new DomainError('CONFLICT', 'the record already has a page here', [{ message: 'Another request made this page first', type: 'GENERAL', correctionSuggestion: 'Read the existing page and change it instead' }]);
    };
    return mapUniqueViolations(async () => {
      const handled = await handleCommand({
        store,
        decider: pageDecider,
        streamId: pageStream(pageUuid),
        command: typeof command === 'function' ? (s: PageState) => command(s) : command,
        context,
        snapshot: async (attempt) => {
          if (attempt === 0 && loaded) return loaded;
          const row = await pageByUuid(db, tenant, pageUuid);
          return row ? { state: stateOf(row), revision: row.revision } : null;
        },
        retryDelayMs: (attempt) => attempt * 2,
      });
      heads.remember(tenant, handled);
      return handled;
    }, {
      rm_pages_slug_unique: async () => {
        const row = await pageByUuid(db, tenant, pageUuid);
        throw invalid('body.slug', 'the slug is taken in this environment and locale', `Choose another slug than those of the other pages of environment ${row?.environment ?? ''}`, 'INVALID_VALUE');
      },
      rm_pages_record_unique: recordHasPage,
      rm_pages_template_unique: recordHasPage,
    });
  }

  async function dto(view: PageView, tenant: string): Promise<CmsPage> {
    const { vals, locales } = await pageExtras(db, tenant, view.recordUuid, view.environment);
    return toCmsPage(view, seconds(Date.now()), vals ?? {}, view.template ? [view.locale] : locales);
  }

  async function pageOf(tenant: string, recordUuid: string, environment: string | undefined, locale: string): Promise<PageRow> {
    const row = await pageOfRecordIn(db, tenant, recordUuid, environment ?? null, locale);
    if (!row) throw notFound('Webpage', `of record ${recordUuid} in environment ${environment ?? '(default)'} and locale ${locale}`);
    return row;
  }

  /** The record a page is bound to, with its Page trait: a 400 when either is missing. */
  async function pageRecord(tenant: string, recordUuid: string) {
    const record = await getRecord(db, tenant, recordUuid);
    if (!record || record.deleted_at !== null) throw invalid('body.recordUuid', `body.recordUuid: record ${recordUuid} does not exist in the selected company`, 'Send the uuid of a live record', 'NOT_FOUND');
    const objectUuid = record.primary_object_uuid;
    const trait = await traitOf(db, tenant, objectUuid, 'Page');
    if (trait) return { record, objectUuid, objectName: record.object_name, config: trait.config as PageConfig };
    throw invalid('body.recordUuid', `body.recordUuid: the object ${record.object_name} has no Page trait`, `Add the Page trait to ${record.object_name} first: POST /api/v2/traits/${record.primary_object_uuid}/Page`, 'RELATION_NOT_ALLOWED');
  }

  return {
    found,
    dto,
    run,
    environmentOf,
    viewOfRow,

    async get(tenant: string, pageUuid: string, smartened: boolean): Promise<CmsPage> {
      const row = await found(tenant, pageUuid);
      const page = await dto(viewOfRow(row), tenant);
      return smartened ? { ...page, title: smartenTitle(page.title, page.record.properties) } : page;
    },

    async create(context: CommandContext, body: CreatePageBody, template = false): Promise<CmsPage> {
      const { tenant } = context;
      const { record, objectUuid, objectName, config } = await pageRecord(tenant, body.recordUuid);
      const env = await environmentOf(tenant, body.environment, 'body.environment');
      const locale = body.locale ?? env.html_lang;
      if (!template && (await pageOfRecord(db, tenant, record.uuid, env.key, locale))) {
        throw new DomainError('CONFLICT', 'the record already has a page here', [{ message: `Record ${record.uuid} already has a page in environment ${env.key} (${locale})`, type: 'GENERAL', correctionSuggestion: 'Change that page, or create one in another environment or locale' }]);
      }
      const vals = record.vals;
      const fromRecord = (name: string | undefined) => (name && typeof vals[name] === 'string' && (vals[name] as string).trim() !== '' ? (vals[name] as string).trim() : undefined);
      const title = (body.title ?? fromRecord(config.titleProperty) ?? fromRecord('name') ?? fromRecord('title') ?? 'Untitled').slice(0, 300);
      let slug = body.slug;
      if (slug !== undefined && !SLUG.test(slug)) throw invalid('body.slug', `body.slug: "${slug.slice(0, 60)}" is not a slug`, 'Use lowercase letters, digits and single hyphens, e.g. "spring-offer"', 'INVALID_VALUE');
      slug ??= slugify(fromRecord(config.slugProperty) ?? title);
      const pageUuid = randomUUID();
      if (template) slug = `template-${pageUuid.slice(0, 8)}`;
      else if (body.slug === undefined && (await slugInUse(db, tenant, env.key, locale, slug))) slug = `${slug}-${record.uuid.slice(0, 8)}`;
      else if (await slugInUse(db, tenant, env.key, locale, slug)) throw slugTaken(slug, env.key, locale);
      const handled = await run(
        tenant,
        pageUuid,
        {
          type: 'CreatePage',
          info: { pageUuid, recordUuid: record.uuid, objectUuid, objectName, environment: env.key, locale, template },
          title,
          slug,
          protection: (await protectionOf(body.protection)) ?? { type: 'none' },
          document: { modules: [], seo: body.seo ?? {}, excerpt: body.excerpt ?? '', css: body.css ?? '', headJs: body.headJs ?? '', bodyJs: body.bodyJs ?? '' },
        },
        context,
      );
      return dto(viewOfState(handled.state), tenant);
    },

    /** PUT /webpages/{uuid}: the document fields become one edit batch (a revision in the history). */
    async update(context: CommandContext, pageUuid: string, body: UpdatePageBody): Promise<CmsPage> {
      await found(context.tenant, pageUuid);
      const fields = Object.fromEntries((['title', 'slug', 'excerpt', 'css', 'headJs', 'bodyJs'] as const).filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
      const patches: PagePatchInput[] = [...(Object.keys(fields).length ? [{ op: 'setPage', fields }] : []), ...(body.seo ? [{ op: 'setSeo', seo: body.seo }] : [])];
      const protection = await protectionOf(body.protection);
      const handled = await run(context.tenant, pageUuid, { type: 'PatchPage', patches, freshIds: [], catalogue: null, protection, expectedRevision: body.expectedRevision }, context);
      return dto(viewOfState(handled.state), context.tenant);
    },

    /**
     * The module editor. The batch is decided on the page's kept head when there is one (no read:
     * one statement, which also reads what the reply adds to the page), else on the page as read
     * beside the module catalogue. A batch a head refused is decided again on the page as read, so
     * a stale head never decides an answer.
     */
    async patch(context: CommandContext, recordUuid: string, environment: string | undefined, body: { locale: string; patches: PagePatchInput[]; expectedRevision: number }): Promise<CmsPage> {
      const { tenant } = context;
      const freshIds = Array.from({ length: idsNeeded(body.patches) }, () => randomUUID());
      const command = (catalogue: ModuleCatalogue | null): PageCommand => ({ type: 'PatchPage', patches: body.patches, freshIds, catalogue, expectedRevision: body.expectedRevision });
      const [env, catalogue] = await Promise.all([environment ?? defaultKey(tenant), catalogueOf(tenant, context.userUuid)]);
      const head = env === null ? undefined : heads.at(tenant, recordUuid, env, body.locale);
      if (head) {
        const pageUuid = head.state.info!.pageUuid;
        try {
          const handled = await run(tenant, pageUuid, command(catalogue), context, head);
          const extras = (handled.answer as PageExtras | undefined) ?? (await pageExtras(db, tenant, recordUuid, env!));
          return toCmsPage(viewOfState(handled.state), seconds(Date.now()), extras.vals ?? {}, extras.locales ?? []);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          heads.forget(tenant, pageUuid);
        }
      }
      // The page (with what its answer adds: the record's values and the record's locales, which a
      // patch does not change), then the append.
      const row = await pageOfRecordWithExtras(db, tenant, recordUuid, environment ?? null, body.locale);
      if (!row) throw notFound('Webpage', `of record ${recordUuid} in environment ${environment ?? '(default)'} and locale ${body.locale}`);
      const loaded = { state: stateOf(row), revision: row.revision };
      heads.remember(tenant, loaded);
      const handled = await run(tenant, row.page_uuid, command(catalogue), context, loaded);
      return toCmsPage(viewOfState(handled.state), seconds(Date.now()), row.vals ?? {}, row.locales ?? []);
    },

    pageOf,

    /** A new page of the same record in another environment or locale, with a copy of `source`'s document (revision 0). */
    async createCopy(context: CommandContext, source: PageRow, where: { environment: string; locale: string; slug: string }): Promise<CmsPage> {
      const pageUuid = randomUUID();
      const { modules, seo, excerpt, css, headJs, bodyJs } = source.document;
      const handled = await run(
        context.tenant,
        pageUuid,
        {
          type: 'CreatePage',
          info: { pageUuid, recordUuid: source.record_uuid, objectUuid: source.object_uuid, objectName: source.object_name, environment: where.environment, locale: where.locale, template: false },
          title: source.document.title,
          slug: where.slug,
          protection: source.protection,
          document: { modules, seo, excerpt, css, headJs, bodyJs },
        },
        context,
      );
      return dto(viewOfState(handled.state), context.tenant);
    },

    async publish(context: CommandContext, pageUuid: string, at: { publishAt?: number; unpublishAt?: number }, publish: boolean): Promise<CmsPage> {
      await found(context.tenant, pageUuid);
      const now = seconds(context.now);
      const command: PageCommand = publish ? { type: 'PublishPage', publishAt: at.publishAt, now } : { type: 'UnpublishPage', unpublishAt: at.unpublishAt, now };
      const handled = await run(context.tenant, pageUuid, command, context);
      return dto(viewOfState(handled.state), context.tenant);
    },
  };
}
export type PagesService = ReturnType<typeof makePagesService>;

/**
 * The smartened title (GET ?smartened=true): `{{property}}` placeholders filled from the record's
 * values, whitespace collapsed, and straight quotes and `--` made typographic.
 */
export function smartenTitle(title: string, values: Record<string, unknown>): string {
  return title
    .replace(/\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g, (_, name: string) => {
      const v = values[name];
      return v === undefined || v === null ? '' : typeof v === 'object' ? '' : String(v);
    })
    .replace(/\s+/g, ' ')
    .replace(/(^|[\s(])"/g, '$1\u201c')
    .replace(/"/g, '\u201d')
    .replace(/(^|[\s(])'/g, '$1\u2018')
    .replace(/'/g, '\u2019')
    .replace(/--/g, '\u2013')
    .trim();
}
