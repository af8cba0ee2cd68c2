import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import { teamDecider } from '../../aggregates/team/team.decider.js';
import { teamStream } from '../../aggregates/team/team.events.js';
import { getRecord, teamsOfRecords } from '../../read-models/records.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { handleCommand } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { envelope, ok } from '../http/envelope.js';
import { errorBodySchema } from '../http/error-body.js';

const errors = Object.fromEntries([400, 401, 403, 404].map((c) => [c, errorBodySchema]));
const params = z.object({ uuid: z.uuid(), teamUuid: z.uuid() });
const teamsSchema = z.array(z.object({ uuid: z.string(), name: z.string() }));
const write = { auth: { scopes: ['teams:write'] as const } };

/**
 * Teams on records, from the record's side: the assignment itself is the team's (identity's team
 * aggregate and its team_records read model); here the record must exist in the company first.
 */
export const recordTeamsRoutes = (deps: { db: Db; store: EventStore }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, store } = deps;

    async function change(tenant: string, ctx: ReturnType<typeof commandContext>, uuid: string, teamUuid: string, assign: boolean) {
      if (!(await getRecord(db, tenant, uuid))) throw notFound('Record', uuid);
      await handleCommand({
        store,
        decider: teamDecider,
        streamId: teamStream(teamUuid),
        command: assign ? { type: 'AssignTeamRecord', recordUuid: uuid } : { type: 'UnassignTeamRecord', recordUuid: uuid },
        context: ctx,
      });
      return (await teamsOfRecords(db, tenant, [uuid])).get(uuid) ?? [];
    }

    app.put('/records/:uuid/teams/:teamUuid', { config: write, schema: { tags: ['records'], description: 'Assigns a team to the record; answers the record\'s teams.', params, response: { 200: envelope(teamsSchema), ...errors } } }, async (request) =>
      ok(await change(companyActor(request).tenant, commandContext(request), request.params.uuid, request.params.teamUuid, true), 'assigned'),
    );

    app.delete('/records/:uuid/teams/:teamUuid', { config: write, schema: { tags: ['records'], params, response: { 200: envelope(teamsSchema), ...errors } } }, async (request) =>
      ok(await change(companyActor(request).tenant, commandContext(request), request.params.uuid, request.params.teamUuid, false), 'unassigned'),
    );
  };
