import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { SANDBOX_USERS } from './sandbox-header.js';
import { createSandboxBodySchema, sandboxSchema, toSandbox, updateSandboxBodySchema } from './sandboxes.schemas.js';
import type { SandboxesService } from './sandboxes.service.js';

const tags = ['developer-sandboxes'];
const params = z.object({ uuid: z.uuid() });
/** Reading: ADMIN and DEVELOPER; creating, changing and deleting: ADMIN (docs/sandboxes.md). */
const read = { auth: { roles: SANDBOX_USERS } };
const owner = { auth: { roles: ['ADMIN' as const] } };

/** Developer sandboxes (spec 4.13): `GET POST developer-sandboxes`, `GET PUT DELETE developer-sandboxes/{uuid}`. */
export const sandboxesRoutes = (deps: { sandboxes: SandboxesService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { sandboxes } = deps;

    app.get(
      '/',
      { config: read, schema: { tags, description: "The sandboxes of the caller's selected company, newest first. `page` and `limit` in the query.", querystring: z.object({ page: z.coerce.number().int().min(0).max(1_000_000).default(0), limit: z.coerce.number().int().min(1).max(100).default(25) }), response: { 200: listEnvelope(sandboxSchema) } } },
      async (request) => {
        const tenant = companyActor(request).tenant;
        const { page: n, limit } = request.query;
        const { rows, total } = await sandboxes.list(tenant, { limit, offset: pageOffset(n, limit) });
        return page(await app.audit.all(tenant, rows, toSandbox), total, n, limit);
      },
    );

    app.post(
      '/index',
      { config: read, schema: { tags, description: 'The same list as GET, with the pagination request body (spec 2.1).', body: paginationBody, response: { 200: listEnvelope(sandboxSchema) } } },
      async (request) => {
        const tenant = companyActor(request).tenant;
        const { page: n, limit } = request.body;
        const { rows, total } = await sandboxes.list(tenant, { limit, offset: pageOffset(n, limit) });
        return page(await app.audit.all(tenant, rows, toSandbox), total, n, limit);
      },
    );

    app.post(
      '/',
      {
        config: owner,
        schema: {
          tags,
          description:
            "Clones the selected company's data into a new sandbox (no new company: the company's identity and every uuid stay), as of `asOf` when given. Answers at once with status `cloning`; the clone runs in the background (poll GET for its percentage). Use it with the header X-Platform-Sandbox-Uuid.",
          body: createSandboxBodySchema,
          response: { 202: envelope(sandboxSchema) },
        },
      },
      async (request, reply) => {
        const tenant = companyActor(request).tenant;
        reply.code(202);
        return ok(await app.audit.one(tenant, await sandboxes.create(commandContext(request), request.body), toSandbox), 'cloning');
      },
    );

    app.get('/:uuid', { config: read, schema: { tags, description: 'One sandbox, with its clone status and percentage.', params, response: { 200: envelope(sandboxSchema) } } }, async (request) => {
      const tenant = companyActor(request).tenant;
      return ok(await app.audit.one(tenant, await sandboxes.found(tenant, request.params.uuid), toSandbox));
    });

    app.put(
      '/:uuid',
      { config: owner, schema: { tags, description: 'Our extension: turns webhooks and syncs on or off for what happens in the sandbox.', params, body: updateSandboxBodySchema, response: { 200: envelope(sandboxSchema) } } },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await sandboxes.update(commandContext(request), request.params.uuid, request.body), toSandbox), 'updated'),
    );

    app.delete(
      '/:uuid',
      { config: owner, schema: { tags, description: 'Our extension: deletes the sandbox; the header naming it then answers 404. Production is not touched.', params, response: { 200: envelope(z.string()) } } },
      async (request) => {
        await sandboxes.remove(commandContext(request), request.params.uuid);
        return ok('deleted', 'deleted');
      },
    );
  };
