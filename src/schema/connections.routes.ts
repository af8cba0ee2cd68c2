import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { dataString, errorResponses, memberAuth } from './http-common.js';
import { connectBodySchema, connectionSchema, toConnection } from './relations.schemas.js';
import type { ConnectionsService } from './connections.service.js';

const tags = ['relations'];
const params = z.object({ relationUuid: z.uuid(), from: z.uuid().describe('A record of the origin object'), to: z.uuid().describe('A record of the target object') });

/**
 * Connecting records through a relation. It changes data, not the schema, so any member of the
 * company may do it (as with records).
 */
export const connectionsRoutes = (deps: { connections: ConnectionsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { connections } = deps;

    app.put(
      '/:relationUuid/connection/:from/:to',
      {
        config: memberAuth,
        schema: {
          tags,
          description: "Connects two records (or replaces the connection's edge properties). The relation's cardinality is enforced: a second connection where one is allowed answers 409 RELATION_NOT_ALLOWED.",
          params,
          body: connectBodySchema,
          response: { 200: envelope(connectionSchema), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => {
        const { relationUuid, from, to } = request.params;
        return ok(toConnection(await connections.connect(commandContext(request), relationUuid, from, to, request.body.edgeProperties ?? {})), 'connected');
      },
    );

    app.delete(
      '/:relationUuid/connection/:from/:to',
      { config: memberAuth, schema: { tags, description: 'Removes the connection of two records.', params, response: { 200: dataString, ...errorResponses(401, 403, 404) } } },
      async (request) => {
        const { relationUuid, from, to } = request.params;
        await connections.disconnect(commandContext(request), relationUuid, from, to);
        return ok('disconnected', 'disconnected');
      },
    );
  };
