import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { moduleFieldSchema } from '../../aggregates/module/module.schemas.js';
import type { ModuleRow } from '../../read-models/cms-modules.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { pageOffset, paginationBody } from '../http/pagination.js';
import { dataString, errorResponses } from '../schema/http-common.js';
import type { ModulesService } from './modules.service.js';

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

const byId = z.object({ moduleId: z.uuid() });

export const modulesRoutes = (deps: { modules: ModulesService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { modules } = deps;
    for (const personal of [false, true]) {
      const base = personal ? '/modules/personal' : '/modules';
      const owner = (request: Parameters<typeof companyActor>[0]) => (personal ? companyActor(request).userUuid : null);
      const writeAuth = personal ? own : write;
      const what = personal ? "the caller's personal module" : 'a company module';

      app.post(base, { config: writeAuth, schema: { tags, description: `Creates ${what}.`, body: createBody, response: { 201: envelope(moduleDefinitionSchema), ...errors } } }, async (request, reply) => {
        const b = request.body;
        reply.code(201);
        return ok(await app.audit.one(companyActor(request).tenant, await modules.create(commandContext(request), owner(request), { name: b.name, label: b.label ?? b.name, description: b.description ?? '', fields: b.fields }), toModule), 'created');
      });

      app.post(`${base}/index`, { config: read, schema: { tags, description: `Lists ${personal ? "the caller's personal modules" : 'the company modules'} by name.`, body: paginationBody, response: { 200: listEnvelope(moduleDefinitionSchema), ...errors } } }, async (request) => {
        const { limit, page: n } = request.body;
        const { rows, total } = await modules.list(companyActor(request).tenant, owner(request), limit, pageOffset(n, limit));
        return page(await app.audit.all(companyActor(request).tenant, rows, toModule), total, n, limit);
      });

      app.get(`${base}/:moduleId`, { config: read, schema: { tags, params: byId, response: { 200: envelope(moduleDefinitionSchema), ...errors } } }, async (request) =>
        ok(await app.audit.one(companyActor(request).tenant, await modules.found(companyActor(request).tenant, request.params.moduleId, owner(request)), toModule)),
      );

      app.put(`${base}/:moduleId`, { config: writeAuth, schema: { tags, params: byId, body: updateBody, response: { 200: envelope(moduleDefinitionSchema), ...errors } } }, async (request) =>
        ok(await app.audit.one(companyActor(request).tenant, await modules.update(commandContext(request), request.params.moduleId, owner(request), request.body), toModule), 'updated'),
      );

      app.delete(`${base}/:moduleId`, { config: writeAuth, schema: { tags, description: 'Deletes the definition; pages that use it keep rendering (their modules stay), but a change to such a module is refused until a definition of that name exists again.', params: byId, response: { 200: dataString, ...errors } } }, async (request) => {
        await modules.remove(commandContext(request), request.params.moduleId, owner(request));
        return ok('deleted', 'deleted');
      });
    }
  };
