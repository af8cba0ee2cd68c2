import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rootSlugOf, type EnvironmentRow } from '../../read-models/cms-environments.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { dataString, errorResponses } from '../schema/http-common.js';
import type { EnvironmentsService } from './environments.service.js';

const tags = ['cms'];
const read = { auth: {} };
const write = { auth: { scopes: ['webpages:write' as const] } };
const errors = errorResponses(400, 401, 403, 404, 409);

const fields = {
  key: z.string().min(1).max(63).describe('Lowercase letters, digits, _ and -; unique per company; cannot change'),
  label: z.string().min(1).max(200).optional(),
  routing: z.string().min(1).max(100).optional().describe('How the site routes to this environment, e.g. path, subdomain, domain (default path)'),
  slugPrefix: z.string().max(100).regex(/^([a-z0-9]+(-[a-z0-9]+)*)?$/, 'empty, or lowercase letters, digits and hyphens').optional().describe('The rootSlug of its public pages (default: the key)'),
  hostLabel: z.string().max(253).optional(),
  htmlLang: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/).max(35).optional().describe('Default locale of its pages (default en)'),
  requiresAuth: z.boolean().optional(),
  default: z.boolean().optional().describe('Exactly one environment of a company is the default'),
};
const createBody = z.strictObject(fields).meta({ id: 'EnvironmentCreate' });
const updateBody = z.strictObject({ ...fields, key: fields.key.optional() }).meta({ id: 'EnvironmentUpdate' });

export const environmentSchema = z
  .object({ uuid: z.string(), key: z.string(), label: z.string(), routing: z.string(), slugPrefix: z.string().describe('The rootSlug its public pages live under: the prefix set, else the key'), hostLabel: z.string(), htmlLang: z.string(), requiresAuth: z.boolean(), default: z.boolean() })
  .meta({ id: 'Environment' });

export const toEnvironment = (r: EnvironmentRow): z.infer<typeof environmentSchema> => ({
  uuid: r.env_uuid,
  key: r.key,
  label: r.label,
  routing: r.routing,
  slugPrefix: rootSlugOf(r),
  hostLabel: r.host_label,
  htmlLang: r.html_lang,
  requiresAuth: r.requires_auth,
  default: r.is_default,
});

const byKey = z.object({ key: z.string().min(1).max(63) });

export const environmentsRoutes = (deps: { environments: EnvironmentsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { environments } = deps;
    const list = async (tenant: string) => (await environments.list(tenant)).map(toEnvironment);

    app.get('/cms/environments', { config: read, schema: { tags, description: "The company's environments.", response: { 200: envelope(z.array(environmentSchema)), ...errors } } }, async (request) =>
      ok(await list(companyActor(request).tenant)),
    );
    app.get('/webpages/environments', { config: read, schema: { tags, description: "The company's environments (same as GET /cms/environments).", response: { 200: envelope(z.array(environmentSchema)), ...errors } } }, async (request) =>
      ok(await list(companyActor(request).tenant)),
    );

    app.post('/cms/environments', { config: write, schema: { tags, description: 'Creates an environment; the first one of a company is its default.', body: createBody, response: { 201: envelope(environmentSchema), ...errors } } }, async (request, reply) => {
      reply.code(201);
      return ok(toEnvironment(await environments.create(commandContext(request), request.body)), 'created');
    });

    app.put('/cms/environments/:key', { config: write, schema: { tags, params: byKey, body: updateBody, response: { 200: envelope(environmentSchema), ...errors } } }, async (request) =>
      ok(toEnvironment(await environments.update(commandContext(request), request.params.key, request.body)), 'updated'),
    );

    app.delete('/cms/environments/:key', { config: write, schema: { tags, description: 'Deletes an environment that holds no pages (409 naming how many it holds).', params: byKey, response: { 200: dataString, ...errors } } }, async (request) => {
      await environments.remove(commandContext(request), request.params.key);
      return ok('deleted', 'deleted');
    });
  };
