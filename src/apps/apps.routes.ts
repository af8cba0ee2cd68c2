import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { optionalBody } from '../http/optional-body.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import type { Db } from '../db/db.js';
import { companyOf } from '../../read-models/companies.queries.js';
import {
  appCategories,
  appDetailsSchema,
  appSummarySchema,
  createAppBody,
  creatorViewSchema,
  credentialsSchema,
  installationSchema,
  profileBody,
  reviewBody,
  toCreatorView,
  toDetails,
  toInstallation,
  toSummary,
  withCredentials,
} from './apps.schemas.js';
import type { AppsService } from './apps.service.js';
import { moduleFieldSchema } from '../../aggregates/module/module.schemas.js';

const tags = ['apps'];
const params = z.object({ uuid: z.uuid() });
const appParams = z.object({ appUuid: z.uuid() });
const withCreds = z.object({ installation: installationSchema, credentials: credentialsSchema });
const installBody = optionalBody(z.object({ settings: z.record(z.string().max(64), z.unknown()).default({}) }), () => ({ settings: {} }));
const uninstallBody = optionalBody(z.object({ keepData: z.boolean().default(false), reason: z.string().max(2000).default('') }), () => ({ keepData: false, reason: '' }));
const rotateBody = optionalBody(z.object({ graceMs: z.number().int().min(0).optional() }), () => ({}));
export const cmsModuleBody = z.object({
  name: z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, 'lowercase letters, digits and -, from a letter'),
  label: z.string().trim().min(1).max(200),
  description: z.string().max(2000).default(''),
  fields: z.array(moduleFieldSchema).max(100).default([]),
});
export const cmsModuleSchema = z.object({ name: z.string(), label: z.string(), description: z.string(), fields: z.array(z.unknown()), retired: z.boolean(), updatedAt: z.number().int() }).meta({ id: 'AppCmsModule' });
export const toCmsModule = (r: { name: string; definition: unknown; retired: boolean; updated_at: number }) => {
  const d = r.definition as { label: string; description: string; fields: unknown[] };
  return { name: r.name, label: d.label, description: d.description, fields: d.fields, retired: r.retired, updatedAt: Number(r.updated_at) };
};
const submitBody = optionalBody(z.object({ note: z.string().max(10_000).default('') }), () => ({ note: '' }));

/** The marketplace, the creator view, review, install, uninstall and rotate (spec 4.17). */
export const appsRoutes = (deps: { db: Db; apps: AppsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { apps, db } = deps;
    const read = { auth: {} };
    const write = { auth: { scopes: ['apps:write'] as const } };
    const admin = { auth: { scopes: ['apps:install'] as const } };

    app.post('/index', { config: read, schema: { tags, description: 'Approved public apps and the company\'s private apps, by category then name.', body: paginationBody, response: { 200: listEnvelope(appSummarySchema) } } }, async (request) => {
      const { limit, page: n, query } = request.body;
      const { rows, total } = await apps.list(companyActor(request).tenant, { own: false, query, limit, offset: pageOffset(n, limit) });
      return page(rows.map(toSummary), total, n, limit);
    });

    app.post('/my/index', { config: read, schema: { tags, description: 'Apps created by the selected company, in any review state.', body: paginationBody, response: { 200: listEnvelope(appSummarySchema) } } }, async (request) => {
      const { limit, page: n, query } = request.body;
      const { rows, total } = await apps.list(companyActor(request).tenant, { own: true, query, limit, offset: pageOffset(n, limit) });
      return page(rows.map(toSummary), total, n, limit);
    });

    app.get('/categories', { config: read, schema: { tags, response: { 200: envelope(z.array(z.object({ key: z.string(), label: z.string() }))) } } }, async () => ok(appCategories.map((c) => ({ ...c }))));

    for (const visibility of ['PUBLIC', 'PRIVATE'] as const) {
      app.post(
        `/${visibility.toLowerCase()}`,
        {
          config: write,
          schema: { tags, description: visibility === 'PUBLIC' ? 'Creates a public app in DRAFT.' : 'Creates a private app, installed for the company at once.', body: createAppBody, response: { 201: envelope(creatorViewSchema) } },
        },
        async (request, reply) => {
          reply.code(201);
          return ok(toCreatorView(await apps.create(commandContext(request), visibility, request.body)), 'created');
        },
      );
    }

    app.get('/public/:uuid', { config: read, schema: { tags, description: 'The creator view (the creating company only).', params, response: { 200: envelope(creatorViewSchema) } } }, async (request) =>
      ok(toCreatorView(await apps.ownApp(companyActor(request).tenant, request.params.uuid))),
    );

    app.put('/public/:uuid', { config: write, schema: { tags, description: 'Replaces the creator object.', params, body: profileBody, response: { 200: envelope(creatorViewSchema) } } }, async (request) =>
      ok(toCreatorView(await apps.updateProfile(commandContext(request), request.params.uuid, request.body)), 'updated'),
    );

    app.post('/public/:uuid/submit', { config: write, schema: { tags, params, body: submitBody, response: { 200: envelope(creatorViewSchema) } } }, async (request) =>
      ok(toCreatorView(await apps.submit(commandContext(request), request.params.uuid, request.body.note)), 'submitted'),
    );

    app.post(
      '/public/:uuid/review',
      { config: { auth: { roles: ['SUPER_ADMIN'] as const } }, schema: { tags, description: 'SUPER_ADMIN only: APPROVE, REJECT or REQUEST_CHANGES a SUBMITTED app.', params, body: reviewBody, response: { 200: envelope(creatorViewSchema) } } },
      async (request) => ok(toCreatorView(await apps.review(commandContext(request), request.params.uuid, request.body)), 'reviewed'),
    );

    app.get('/:uuid', { config: read, schema: { tags, params, response: { 200: envelope(appDetailsSchema) } } }, async (request) =>
      ok(toDetails(await apps.visibleApp(companyActor(request).tenant, request.params.uuid))),
    );

    app.get(
      '/:appUuid/me',
      {
        config: read,
        schema: {
          tags,
          description: 'The caller\'s company as the app sees it.',
          params: appParams,
          response: { 200: envelope(z.object({ companyUuid: z.string(), name: z.string(), subdomain: z.string(), userUuid: z.string(), role: z.string(), installed: z.boolean() })) },
        },
      },
      async (request) => {
        const actor = companyActor(request);
        await apps.visibleApp(actor.tenant, request.params.appUuid);
        const company = await companyOf(db, actor.tenant);
        const installed = await apps.installed(actor.tenant, request.params.appUuid).then(() => true, () => false);
        return ok({ companyUuid: actor.tenant, name: company?.name ?? '', subdomain: company?.subdomain ?? '', userUuid: actor.userUuid, role: actor.role, installed });
      },
    );

    app.get('/:appUuid/cms-modules', { config: read, schema: { tags, description: 'The app\'s CMS module catalog, retired modules included.', params: appParams, response: { 200: envelope(z.array(cmsModuleSchema)) } } }, async (request) =>
      ok((await apps.cmsModules(companyActor(request).tenant, request.params.appUuid)).map(toCmsModule)),
    );

    app.put(
      '/:appUuid/cms-modules',
      { config: write, schema: { tags, description: 'Replaces the catalog (the creator company): modules missing from the payload are retired, never deleted; pages that use them keep working.', params: appParams, body: z.object({ modules: z.array(cmsModuleBody).max(200) }), response: { 200: envelope(z.array(cmsModuleSchema)) } } },
      async (request) => ok((await apps.replaceCmsModules(commandContext(request), request.params.appUuid, request.body.modules)).map(toCmsModule), 'replaced'),
    );

    app.post('/:uuid/install', { config: admin, schema: { tags, description: 'Installs an approved app with initial COMPANY settings; answers the credentials once.', params, body: installBody, response: { 201: envelope(withCreds) } } }, async (request, reply) => {
      const { installation, credentials } = await apps.install(commandContext(request), request.params.uuid, request.body.settings);
      reply.code(201);
      return ok(withCredentials(installation, credentials), 'installed');
    });

    app.post('/:uuid/uninstall', { config: admin, schema: { tags, description: 'keepData false (the default) drops settings, state, secrets and connections.', params, body: uninstallBody, response: { 200: envelope(installationSchema) } } }, async (request) =>
      ok(toInstallation(await apps.uninstall(commandContext(request), request.params.uuid, request.body)), 'uninstalled'),
    );

    app.post('/:uuid/rotate', { config: admin, schema: { tags, description: 'New signing secret and client credentials; the old ones work for graceMs (at most APPS_ROTATION_GRACE_MS).', params, body: rotateBody, response: { 200: envelope(withCreds) } } }, async (request) => {
      const { installation, credentials } = await apps.rotate(commandContext(request), request.params.uuid, request.body.graceMs);
      return ok(withCredentials(installation, credentials), 'rotated');
    });
  };
