import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { scopeNames } from '../auth/scopes.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { actorFieldsOf, auditFieldsWithout, type Actors } from '../http/audit-fields.js';
import type { TeamsService, TeamView } from './teams.service.js';

const tags = ['teams'];
const params = z.object({ uuid: z.uuid() });
const memberParams = z.object({ uuid: z.uuid(), userUuid: z.uuid() });
const recordParams = z.object({ uuid: z.uuid(), recordUuid: z.uuid() });
const scopesSchema = z.array(z.enum(scopeNames)).max(100);

const teamSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    description: z.string(),
    scopes: z.array(z.string()).describe('Scopes every member of the team holds in this company'),
    members: z.array(z.object({ uuid: z.string(), email: z.string(), firstname: z.string(), lastname: z.string() })),
    createdByUuid: z.string().nullable().describe('The uuid of createdBy (kept for clients of the first release)'),
    ...auditFieldsWithout('index', 'deletedAt'),
  })
  .meta({ id: 'Team' });

const toTeam = (t: TeamView, actors: Actors): z.infer<typeof teamSchema> => ({
  uuid: t.team_uuid,
  name: t.name,
  description: t.description,
  scopes: t.scopes,
  members: t.members.map((m) => ({ uuid: m.user_uuid, email: m.email, firstname: m.firstname, lastname: m.lastname })),
  createdAt: t.created_at,
  updatedAt: t.updated_at,
  createdByUuid: t.created_by,
  ...actorFieldsOf(t, actors),
  revision: t.revision,
});

/** Teams of the selected company: CRUD, members, scopes, and the team side of record assignment. */
export const teamsRoutes = (deps: { teams: TeamsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { teams } = deps;
    const read = { auth: {} };
    const write = { auth: { scopes: ['teams:write'] as const } };

    app.post(
      '/',
      {
        config: write,
        schema: { tags, body: z.object({ name: z.string().min(1).max(200), description: z.string().max(2000).default(''), scopes: scopesSchema.default([]) }), response: { 201: envelope(teamSchema) } },
      },
      async (request, reply) => {
        reply.code(201);
        return ok(await app.audit.one(companyActor(request).tenant, await teams.create(commandContext(request), request.body), toTeam), 'created');
      },
    );

    app.post('/index', { config: read, schema: { tags, body: paginationBody, response: { 200: listEnvelope(teamSchema) } } }, async (request) => {
      const { limit, page: n, query } = request.body;
      const { rows, total } = await teams.list(companyActor(request).tenant, { query, limit, offset: pageOffset(n, limit) });
      return page(await app.audit.all(companyActor(request).tenant, rows, toTeam), total, n, limit);
    });

    app.get('/:uuid', { config: read, schema: { tags, params, response: { 200: envelope(teamSchema) } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await teams.view(companyActor(request).tenant, request.params.uuid), toTeam)),
    );

    app.put(
      '/:uuid',
      {
        config: write,
        schema: { tags, params, body: z.object({ name: z.string().min(1).max(200).optional(), description: z.string().max(2000).optional(), scopes: scopesSchema.optional() }), response: { 200: envelope(teamSchema) } },
      },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await teams.update(commandContext(request), request.params.uuid, request.body), toTeam), 'updated'),
    );

    app.delete('/:uuid', { config: write, schema: { tags, params, response: { 200: envelope(z.string()) } } }, async (request) => {
      await teams.remove(commandContext(request), request.params.uuid);
      return ok(request.params.uuid, 'deleted');
    });

    app.put(
      '/:uuid/users/:userUuid',
      { config: write, schema: { tags, description: 'Adds a member of the company to the team.', params: memberParams, response: { 200: envelope(teamSchema) } } },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await teams.addMember(commandContext(request), request.params.uuid, request.params.userUuid), toTeam), 'added'),
    );

    app.delete('/:uuid/users/:userUuid', { config: write, schema: { tags, params: memberParams, response: { 200: envelope(teamSchema) } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await teams.removeMember(commandContext(request), request.params.uuid, request.params.userUuid), toTeam), 'removed'),
    );

    app.get('/:uuid/records', { config: read, schema: { tags, description: 'Record uuids assigned to the team.', params, response: { 200: envelope(z.array(z.string())) } } }, async (request) =>
      ok(await teams.records(companyActor(request).tenant, request.params.uuid)),
    );

    app.put(
      '/:uuid/records/:recordUuid',
      { config: write, schema: { tags, description: 'Assigns a record to the team; answers the team\'s record uuids.', params: recordParams, response: { 200: envelope(z.array(z.string())) } } },
      async (request) => ok(await teams.assignRecord(commandContext(request), request.params.uuid, request.params.recordUuid), 'assigned'),
    );

    app.delete('/:uuid/records/:recordUuid', { config: write, schema: { tags, params: recordParams, response: { 200: envelope(z.array(z.string())) } } }, async (request) =>
      ok(await teams.unassignRecord(commandContext(request), request.params.uuid, request.params.recordUuid), 'unassigned'),
    );
  };
