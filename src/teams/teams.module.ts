import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { teamsRoutes } from './teams.routes.js';
import { makeTeamsService } from './teams.service.js';

/** Teams (issue 3): `/api/v2/teams`. */
export async function registerTeams(app: FastifyInstance, deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;
  await app.register(teamsRoutes({ teams: makeTeamsService({ db, store }) }), { prefix: '/api/v2/teams' });
}
