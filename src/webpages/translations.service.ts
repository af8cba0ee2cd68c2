import { DomainError, invalid, notFound } from '../../aggregates/kernel/errors.js';
import { translationDecider, type TranslationCommand } from '../../aggregates/page/page-translation.decider.js';
import { translationStream } from '../../aggregates/page/page-translation.events.js';
import { defaultEnvironment, environmentByKey } from '../../read-models/cms-environments.queries.js';
import { pageOfRecord, pagesLinkedTo, pagesOfRecord, slugInUse, type PageRow } from '../../read-models/pages.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { CmsPage } from './pages.schemas.js';
import { slugify, type PagesService } from './pages.service.js';

/**
 * Translations (spec 4.2, 4.3): pages of different environments linked as translations of each
 * other (one stream per pair), and copies of a page into another environment. Writes take the
 * command context first, reads the tenant first; another company's page is the same 404 as a
 * missing one.
 */
export function makeTranslationsService(deps: { db: Db; store: EventStore; pages: PagesService }) {
  const { db, store, pages } = deps;
  const run = (context: CommandContext, command: TranslationCommand) =>
    handleCommand({ store, decider: translationDecider, streamId: translationStream(command.pageUuid, command.otherUuid), command, context });

  async function pair(tenant: string, fromUuid: string, toUuid: string) {
    const [from, to] = [await pages.found(tenant, fromUuid), await pages.found(tenant, toUuid)];
    if (from.environment === to.environment) {
      throw invalid('params.toUuid', `both pages are in environment ${from.environment}`, 'Link pages of two different environments', 'INVALID_VALUE');
    }
    return [from, to] as const;
  }

  async function targetEnvironment(tenant: string, key: string, source: PageRow, field: string) {
    const target = await environmentByKey(db, tenant, key);
    if (!target) throw notFound('Environment', key);
    if (target.key === source.environment) throw invalid(field, `the page is already in environment ${target.key}`, 'Name another environment', 'INVALID_VALUE');
    return target;
  }

  /** `source` copied into `environment` and `locale`: its slug, or the slug with the record's uuid when a page there has it. */
  async function copyInto(context: CommandContext, source: PageRow, environment: string, locale: string, conflict: { message: string; suggestion: string }): Promise<CmsPage> {
    if (await pageOfRecord(db, context.tenant, source.record_uuid, environment, locale)) {
      throw new DomainError('CONFLICT', conflict.message, [{ message: `The record already has a page in ${environment} (${locale})`, type: 'GENERAL', correctionSuggestion: conflict.suggestion }]);
    }
    const slug = source.document.slug;
    const taken = await slugInUse(db, context.tenant, environment, locale, slug);
    return pages.createCopy(context, source, { environment, locale, slug: taken ? `${slugify(slug)}-${source.record_uuid.slice(0, 8)}` : slug });
  }

  /**
   * The page a translation copies: the record's page in `environment` (default: the default one)
   * and `locale`; without `locale`, its page in that environment's htmlLang, else its only page
   * there (400 naming the locales when it has several, none in the htmlLang).
   */
  async function sourceOf(tenant: string, recordUuid: string, environment: string | undefined, locale: string | undefined): Promise<PageRow> {
    if (locale !== undefined) return pages.pageOf(tenant, recordUuid, environment, locale);
    const env = environment === undefined ? await defaultEnvironment(db, tenant) : await environmentByKey(db, tenant, environment);
    const there = env ? (await pagesOfRecord(db, tenant, recordUuid)).filter((p) => p.environment === env.key) : [];
    const page = there.find((p) => p.locale === env?.html_lang) ?? (there.length === 1 ? there[0] : undefined);
    if (page) return page;
    if (!env || there.length === 0) throw notFound('Webpage', `of record ${recordUuid} in environment ${environment ?? '(default)'}`);
    const locales = there.map((p) => p.locale).join(', ');
    throw invalid('querystring.locale', `the record has pages in ${there.length} locales of environment ${env.key}, none in its htmlLang ${env.html_lang}`, `Name the page to translate: send locale, one of ${locales}`, 'INVALID_VALUE');
  }

  return {
    async link(context: CommandContext, fromUuid: string, toUuid: string) {
      await pair(context.tenant, fromUuid, toUuid);
      await run(context, { type: 'Link', pageUuid: fromUuid, otherUuid: toUuid });
    },

    async unlink(context: CommandContext, fromUuid: string, toUuid: string) {
      await pair(context.tenant, fromUuid, toUuid);
      await run(context, { type: 'Unlink', pageUuid: fromUuid, otherUuid: toUuid });
    },

    /** A record's pages and the pages linked to them, by environment key. */
    async map(tenant: string, recordUuid: string): Promise<Record<string, PageRow[]>> {
      const own = await pagesOfRecord(db, tenant, recordUuid);
      if (own.length === 0) throw notFound('Webpage', `of record ${recordUuid}`);
      const linked = await pagesLinkedTo(db, tenant, own.map((p) => p.page_uuid));
      const map: Record<string, PageRow[]> = {};
      const seen = new Set<string>();
      for (const p of [...own, ...linked]) {
        if (seen.has(p.page_uuid)) continue;
        seen.add(p.page_uuid);
        (map[p.environment] ??= []).push(p);
      }
      return map;
    },

    /** The page as a new page of `toEnvironment` (same record and locale, document at revision 0, not linked). */
    async copy(context: CommandContext, pageUuid: string, fromEnvironment: string, toEnvironment: string): Promise<CmsPage> {
      const source = await pages.found(context.tenant, pageUuid);
      if (source.environment !== fromEnvironment) throw invalid('params.fromEnvironment', `the page is in environment ${source.environment}, not ${fromEnvironment}`, `Send ${source.environment} as fromEnvironment`, 'INVALID_VALUE');
      const target = await targetEnvironment(context.tenant, toEnvironment, source, 'params.toEnvironment');
      return copyInto(context, source, target.key, source.locale, { message: 'the record already has a page there', suggestion: 'Change that page, or delete the environment copy first' });
    },

    /** The record's page (`sourceOf`) copied into environment `key` in `toLocale` (default: its htmlLang), linked to it. */
    async translate(context: CommandContext, recordUuid: string, key: string, from: { environment?: string; locale?: string; toLocale?: string }): Promise<CmsPage> {
      const source = await sourceOf(context.tenant, recordUuid, from.environment, from.locale);
      const target = await targetEnvironment(context.tenant, key, source, 'params.key');
      const created = await copyInto(context, source, target.key, from.toLocale ?? target.html_lang, { message: 'the translation exists', suggestion: 'Link it with POST /cms/environments/translations/{fromUuid}/link/{toUuid}' });
      await run(context, { type: 'Link', pageUuid: source.page_uuid, otherUuid: created.uuid });
      return pages.get(context.tenant, created.uuid, false);
    },
  };
}
export type TranslationsService = ReturnType<typeof makeTranslationsService>;
