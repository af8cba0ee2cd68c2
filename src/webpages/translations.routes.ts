import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, invalid } from '../../aggregates/kernel/errors.js';
import { translationDecider, translationStream, type TranslationCommand } from '../../aggregates/page/page-translation.events.js';
import type { PageRow } from '../../read-models/pages.queries.js';
import { environmentByKey } from '../../read-models/cms-environments.queries.js';
import { pageOfRecord, pagesOfRecord } from '../../read-models/pages.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { envelope, ok } from '../http/envelope.js';
import { dataString, errorResponses } from '../schema/http-common.js';
import { cmsPageSchema, localeSchema } from './pages.schemas.js';
import { slugify, type PagesService } from './pages.service.js';
import { notFound } from '../../aggregates/kernel/errors.js';

const write = { auth: { scopes: ['webpages:write' as const] } };
const errors = errorResponses(400, 401, 403, 404, 409);
const pairParams = z.object({ fromUuid: z.uuid(), toUuid: z.uuid() });

const entry = z.object({ uuid: z.string(), recordUuid: z.string(), locale: z.string(), slug: z.string(), title: z.string() });
const toEntry = (r: PageRow) => ({ uuid: r.page_uuid, recordUuid: r.record_uuid, locale: r.locale, slug: r.slug, title: r.title });

/** Translations (spec 4.2, 4.3): pages of different environments linked as translations of each other. */
export const translationsRoutes = (deps: { db: Db; store: EventStore; pages: PagesService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, store, pages } = deps;
    const run = (command: TranslationCommand, context: CommandContext) =>
      handleCommand({ store, decider: translationDecider, streamId: translationStream(command.pageUuid, command.otherUuid), command, context });

    async function pair(tenant: string, fromUuid: string, toUuid: string) {
      const [from, to] = [await pages.found(tenant, fromUuid), await pages.found(tenant, toUuid)];
      if (from.environment === to.environment) {
        throw invalid('params.toUuid', `both pages are in environment ${from.environment}`, 'Link pages of two different environments', 'INVALID_VALUE');
      }
      return [from, to] as const;
    }

    for (const method of ['POST', 'DELETE'] as const) {
      app.route({
        method,
        url: '/cms/environments/translations/:fromUuid/link/:toUuid',
        config: write,
        schema: { tags: ['cms'], description: method === 'POST' ? 'Links two pages of different environments as translations.' : 'Removes the link.', params: pairParams, response: { 200: dataString, ...errors } },
        handler: async (request) => {
          const context = commandContext(request);
          await pair(context.tenant, request.params.fromUuid, request.params.toUuid);
          await run({ type: method === 'POST' ? 'Link' : 'Unlink', pageUuid: request.params.fromUuid, otherUuid: request.params.toUuid }, context);
          return ok(method === 'POST' ? 'linked' : 'unlinked');
        },
      });
    }

    app.get(
      '/cms/environments/translations/:recordUuid',
      {
        config: { auth: {} },
        schema: { tags: ['cms'], description: "A record's pages and the pages linked to them as translations, by environment key.", params: z.object({ recordUuid: z.uuid() }), response: { 200: envelope(z.record(z.string(), z.array(entry))), ...errors } },
      },
      async (request) => {
        const tenant = companyActor(request).tenant;
        const own = await pagesOfRecord(db, tenant, request.params.recordUuid);
        if (own.length === 0) throw notFound('Webpage', `of record ${request.params.recordUuid}`);
        const linked = await db.query<PageRow>(
          `select p.page_uuid, p.record_uuid, p.locale, p.slug, p.title, p.environment from rm_page_translations t join rm_pages p on p.tenant = t.tenant and p.page_uuid = t.other_uuid
            where t.tenant = $1 and t.page_uuid = any($2::uuid[])`,
          [tenant, own.map((p) => p.page_uuid)],
        );
        const map: Record<string, z.infer<typeof entry>[]> = {};
        const seen = new Set<string>();
        for (const p of [...own, ...linked]) {
          if (seen.has(p.page_uuid)) continue;
          seen.add(p.page_uuid);
          (map[p.environment] ??= []).push(toEntry(p));
        }
        return ok(map);
      },
    );

    app.post(
      '/webpages/:uuid/copy/:fromEnvironment/:toEnvironment',
      {
        config: write,
        schema: {
          tags: ['webpages'],
          description: 'Copies a page of environment `fromEnvironment` into `toEnvironment` (same record and locale; document at revision 0, not published). Returns the new page.',
          params: z.object({ uuid: z.uuid(), fromEnvironment: z.string().min(1).max(63), toEnvironment: z.string().min(1).max(63) }),
          response: { 201: envelope(cmsPageSchema), ...errors },
        },
      },
      async (request, reply) => {
        const context = commandContext(request);
        const { uuid, fromEnvironment, toEnvironment } = request.params;
        const source = await pages.found(context.tenant, uuid);
        if (source.environment !== fromEnvironment) throw invalid('params.fromEnvironment', `the page is in environment ${source.environment}, not ${fromEnvironment}`, `Send ${source.environment} as fromEnvironment`, 'INVALID_VALUE');
        const target = await environmentByKey(db, context.tenant, toEnvironment);
        if (!target) throw notFound('Environment', toEnvironment);
        if (target.key === source.environment) throw invalid('params.toEnvironment', 'the page is already in that environment', 'Name another environment', 'INVALID_VALUE');
        if (await pageOfRecord(db, context.tenant, source.record_uuid, target.key, source.locale)) {
          throw new DomainError('CONFLICT', 'the record already has a page there', [{ message: `The record already has a page in ${target.key} (${source.locale})`, type: 'GENERAL', correctionSuggestion: 'Change that page, or delete the environment copy first' }]);
        }
        const taken = await db.query('select 1 from rm_pages where tenant = $1 and environment = $2 and locale = $3 and slug = $4 and not template', [context.tenant, target.key, source.locale, source.slug]);
        const created = await pages.createCopy(context, source, { environment: target.key, locale: source.locale, slug: taken.length ? `${source.slug}-${source.record_uuid.slice(0, 8)}` : source.slug });
        reply.code(201);
        return ok(created, 'created');
      },
    );

    app.post(
      '/webpages/v2/pages/:recordUuid/environments/:key/translate',
      {
        config: write,
        schema: {
          tags: ['webpages'],
          description: "Creates the record's page in environment `key` as a copy of its page in `locale` (default environment unless `environment`), in `toLocale` (default: the target's htmlLang), and links the two.",
          params: z.object({ recordUuid: z.uuid(), key: z.string().min(1).max(63) }),
          querystring: z.object({ locale: localeSchema, environment: z.string().min(1).max(63).optional(), toLocale: localeSchema.optional() }),
          response: { 200: envelope(cmsPageSchema), ...errors },
        },
      },
      async (request) => {
        const context = commandContext(request);
        const source = await pages.pageOf(context.tenant, request.params.recordUuid, request.query.environment, request.query.locale);
        const target = await environmentByKey(db, context.tenant, request.params.key);
        if (!target) throw notFound('Environment', request.params.key);
        if (target.key === source.environment) throw invalid('params.key', `the page is already in environment ${target.key}`, 'Name another environment', 'INVALID_VALUE');
        const locale = request.query.toLocale ?? target.html_lang;
        if (await pageOfRecord(db, context.tenant, source.record_uuid, target.key, locale)) {
          throw new DomainError('CONFLICT', 'the translation exists', [{ message: `The record already has a page in ${target.key} (${locale})`, type: 'GENERAL', correctionSuggestion: 'Link it with POST /cms/environments/translations/{fromUuid}/link/{toUuid}' }]);
        }
        const d = source.document;
        const taken = await db.query('select 1 from rm_pages where tenant = $1 and environment = $2 and locale = $3 and slug = $4 and not template', [context.tenant, target.key, locale, d.slug]);
        const created = await pages.createCopy(context, source, { environment: target.key, locale, slug: taken.length ? `${slugify(d.slug)}-${source.record_uuid.slice(0, 8)}` : d.slug });
        await run({ type: 'Link', pageUuid: source.page_uuid, otherUuid: created.uuid }, context);
        return ok(await pages.get(context.tenant, created.uuid, false), 'translated');
      },
    );
  };
