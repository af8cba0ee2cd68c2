import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { moduleDecider, type ModuleCommand } from '../../aggregates/module/module.decider.js';
import { moduleStream } from '../../aggregates/module/module.events.js';
import { moduleFieldSchema } from '../../aggregates/module/module.schemas.js';
import type { ModuleCatalogue } from '../../aggregates/page/page.modules.js';
import { listModules, moduleByUuid, moduleCatalogueRows, type ModuleRow } from '../../read-models/cms-modules.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import { cachedCatalogue } from './cms-cache.js';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { pageOffset, paginationBody } from '../http/pagination.js';
import { dataString, errorResponses } from '../schema/http-common.js';

const tags = ['modules'];
const read = { auth: {} };
const write = { auth: { scopes: ['webpages:write' as const] } };
/** Personal modules are the caller's own: any member may keep them. */
const own = { auth: {} };
const errors = errorResponses(400, 401, 403, 404, 409);

const NAME = z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, 'lowercase letters, digits, _ and -, starting with a letter');
const createBody = z
  .strictObject({ name: NAME, label: z.string().min(1).max(200).optional(), description: z.string().max(2000).optional(), fields: z.array(moduleFieldSchema).max(100).default([]) })
  .meta({ id: 'ModuleCreate' });
const updateBody = z.strictObject({ label: z.string().min(1).max(200).optional(), description: z.string().max(2000).optional(), fields: z.array(moduleFieldSchema).max(100).optional() }).meta({ id: 'ModuleUpdate' });

export const moduleDefinitionSchema = z
  .object({ uuid: z.string(), name: z.string(), label: z.string(), description: z.string(), personal: z.boolean(), fields: z.array(z.record(z.string(), z.unknown())), ...auditFields })
  .meta({ id: 'ModuleDefinition' });

const toModule = (r: ModuleRow, actors: Actors): z.infer<typeof moduleDefinitionSchema> => ({
  uuid: r.module_uuid,
  name: r.name,
  label: r.label,
  description: r.description,
  personal: r.owner_uuid !== null,
  fields: r.fields,
  ...auditFieldsOf(r, actors),
});

/** Module definitions (spec 4.8): the company's, and each user's personal ones. */
export function makeModules(deps: { db: Db; store: EventStore; appModules?: (tenant: string) => Promise<ModuleCatalogue> }) {
  const { db, store } = deps;
  async function run(moduleUuid: string, command: ModuleCommand, context: CommandContext) {
    try {
      await handleCommand({ store, decider: moduleDecider, streamId: moduleStream(moduleUuid), command, context });
    } catch (err) {
      if (isUniqueViolation(err, 'rm_cms_modules_name_unique')) {
        throw new DomainError('CONFLICT', 'a module of this name exists', [{ message: 'A live module of this name exists here', type: 'GENERAL', correctionSuggestion: 'Use another name, or change that module' }]);
      }
      throw err;
    }
  }
  async function found(tenant: string, moduleUuid: string, owner: string | null) {
    const row = await moduleByUuid(db, tenant, moduleUuid, owner);
    if (!row) throw notFound('Module', moduleUuid);
    return row;
  }
  /**
   * The catalogue a page edit is checked against: company modules, overridden by the editor's
   * personal ones, and the installed apps' modules (`<appUuid>/<name>`, which no other name matches).
   */
  function catalogue(tenant: string, userUuid: string | null): Promise<ModuleCatalogue> {
    return cachedCatalogue(tenant, userUuid, async () => {
      const [rows, apps] = await Promise.all([moduleCatalogueRows(db, tenant, userUuid), deps.appModules?.(tenant)]);
      return new Map([...(apps ?? []), ...rows.map((r) => [r.name, { name: r.name, label: r.label, description: r.description, fields: r.fields }] as const)]);
    });
  }
  return { run, found, catalogue, list: (tenant: string, owner: string | null, limit: number, offset: number) => listModules(db, tenant, owner, limit, offset) };
}
export type Modules = ReturnType<typeof makeModules>;

const byId = z.object({ moduleId: z.uuid() });

export const modulesRoutes = (deps: { modules: Modules }): FastifyPluginAsyncZod =>
  async (app) => {
    const { modules } = deps;
    for (const personal of [false, true]) {
      const base = personal ? '/modules/personal' : '/modules';
      const owner = (request: Parameters<typeof companyActor>[0]) => (personal ? companyActor(request).userUuid : null);
      const writeAuth = personal ? own : write;
      const what = personal ? "the caller's personal module" : 'a company module';

      app.post(base, { config: writeAuth, schema: { tags, description: `Creates ${what}.`, body: createBody, response: { 201: envelope(moduleDefinitionSchema), ...errors } } }, async (request, reply) => {
        const context = commandContext(request);
        const moduleUuid = randomUUID();
        const b = request.body;
        await modules.run(moduleUuid, { type: 'CreateModule', moduleUuid, ownerUuid: owner(request), settings: { name: b.name, label: b.label ?? b.name, description: b.description ?? '', fields: b.fields } }, context);
        reply.code(201);
        return ok(await app.audit.one(context.tenant, await modules.found(context.tenant, moduleUuid, owner(request)), toModule), 'created');
      });

      app.post(`${base}/index`, { config: read, schema: { tags, description: `Lists ${personal ? "the caller's personal modules" : 'the company modules'} by name.`, body: paginationBody, response: { 200: listEnvelope(moduleDefinitionSchema), ...errors } } }, async (request) => {
        const { limit, page: n } = request.body;
        const { rows, total } = await modules.list(companyActor(request).tenant, owner(request), limit, pageOffset(n, limit));
        return page(await app.audit.all(companyActor(request).tenant, rows, toModule), total, n, limit);
      });

      app.get(`${base}/:moduleId`, { config: read, schema: { tags, params: byId, response: { 200: envelope(moduleDefinitionSchema), ...errors } } }, async (request) =>
        ok(await app.audit.one(companyActor(request).tenant, await modules.found(companyActor(request).tenant, request.params.moduleId, owner(request)), toModule)),
      );

      app.put(`${base}/:moduleId`, { config: writeAuth, schema: { tags, params: byId, body: updateBody, response: { 200: envelope(moduleDefinitionSchema), ...errors } } }, async (request) => {
        const context = commandContext(request);
        await modules.found(context.tenant, request.params.moduleId, owner(request));
        await modules.run(request.params.moduleId, { type: 'UpdateModule', changes: request.body }, context);
        return ok(await app.audit.one(context.tenant, await modules.found(context.tenant, request.params.moduleId, owner(request)), toModule), 'updated');
      });

      app.delete(`${base}/:moduleId`, { config: writeAuth, schema: { tags, description: 'Deletes the definition; pages that use it keep rendering (their modules stay), but a change to such a module is refused until a definition of that name exists again.', params: byId, response: { 200: dataString, ...errors } } }, async (request) => {
        const context = commandContext(request);
        await modules.found(context.tenant, request.params.moduleId, owner(request));
        await modules.run(request.params.moduleId, { type: 'DeleteModule' }, context);
        return ok('deleted', 'deleted');
      });
    }
  };
