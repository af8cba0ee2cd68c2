import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { companyRoleSchema } from '../../aggregates/membership/roles.js';
import type { MemberRow } from '../../read-models/memberships.queries.js';
import { companyActor } from '../auth/actor.js';
import { scopeNames } from '../auth/scopes.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import type { MembersService } from './members.service.js';

const tags = ['companies'];
const companyParams = z.object({ uuid: z.uuid() });
const memberParams = z.object({ uuid: z.uuid(), userUuid: z.uuid() });
const scopesSchema = z.array(z.enum(scopeNames)).max(100);

const memberSchema = z
  .object({
    uuid: z.string(),
    email: z.string(),
    firstname: z.string(),
    lastname: z.string(),
    role: companyRoleSchema,
    scopes: z.array(z.string()),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'Member' });

const toMember = (row: MemberRow): z.infer<typeof memberSchema> => ({
  uuid: row.user_uuid,
  email: row.email,
  firstname: row.firstname,
  lastname: row.lastname,
  role: row.role,
  scopes: row.scopes,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Members of a company: add an existing user with a role and scopes, list, change, remove. */
export const membersRoutes = (deps: { members: MembersService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { members } = deps;
    const admin = { auth: { roles: ['ADMIN'] as const } };

    app.post(
      '/:uuid/users',
      {
        config: admin,
        schema: {
          tags,
          description: 'Adds an existing user (by userUuid or email) with a company role and scopes. SUPER_ADMIN is platform-wide and cannot be granted here.',
          params: companyParams,
          body: z.object({ userUuid: z.uuid().optional(), email: z.email().optional(), role: companyRoleSchema, scopes: scopesSchema.default([]) }),
          response: { 201: envelope(memberSchema) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return ok(toMember(await members.add(companyActor(request), request.params.uuid, request.body, request.id)), 'added');
      },
    );

    app.post(
      '/:uuid/users/index',
      { config: { auth: { scopes: ['members:read'] } }, schema: { tags, params: companyParams, body: paginationBody, response: { 200: listEnvelope(memberSchema) } } },
      async (request) => {
        const { limit, page: n } = request.body;
        const { rows, total } = await members.list(companyActor(request), request.params.uuid, limit, pageOffset(n, limit));
        return page(rows.map(toMember), total, n, limit);
      },
    );

    app.put(
      '/:uuid/users/:userUuid',
      {
        config: admin,
        schema: { tags, params: memberParams, body: z.object({ role: companyRoleSchema.optional(), scopes: scopesSchema.optional() }), response: { 200: envelope(memberSchema) } },
      },
      async (request) => ok(toMember(await members.change(companyActor(request), request.params.uuid, request.params.userUuid, request.body, request.id)), 'updated'),
    );

    app.delete(
      '/:uuid/users/:userUuid',
      { config: admin, schema: { tags, description: "Removes the member; the user's next request in this company is refused.", params: memberParams, response: { 200: envelope(z.null()) } } },
      async (request) => {
        await members.remove(companyActor(request), request.params.uuid, request.params.userUuid, request.id);
        return ok(null, 'removed');
      },
    );
  };
