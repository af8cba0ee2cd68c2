import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { connectionsRoutes } from './connections.routes.js';
import { makeConnectionsService } from './connections.service.js';
import { objectsRoutes } from './objects.routes.js';
import { makeObjectsService } from './objects.service.js';
import { propertiesRoutes } from './properties.routes.js';
import { makePropertiesService } from './properties.service.js';
import { recordsNotStoredYet, type RecordExists } from './record-port.js';
import { relationsRoutes } from './relations.routes.js';
import { makeRelationsService } from './relations.service.js';
import { traitsRoutes } from './traits.routes.js';
import { makeTraitsService } from './traits.service.js';

/**
 * The dynamic schema (issue 4): objects and their properties under /api/v2/objects, relations and
 * record connections under /api/v2/relations, traits under /api/v2/traits. `recordExists` is where
 * the records issue plugs in its read model (see record-port.ts).
 */
export async function registerSchema(app: FastifyInstance, deps: { db: Db; store: EventStore; recordExists?: RecordExists }) {
  const { db, store } = deps;
  await app.register(objectsRoutes({ objects: makeObjectsService({ db, store }) }), { prefix: '/api/v2/objects' });
  await app.register(propertiesRoutes({ properties: makePropertiesService({ db, store }) }), { prefix: '/api/v2/objects' });
  await app.register(relationsRoutes({ relations: makeRelationsService({ db, store }) }), { prefix: '/api/v2/relations' });
  const connections = makeConnectionsService({ db, store, recordExists: deps.recordExists ?? recordsNotStoredYet });
  await app.register(connectionsRoutes({ connections }), { prefix: '/api/v2/relations' });
  await app.register(traitsRoutes({ traits: makeTraitsService({ db, store }) }), { prefix: '/api/v2/traits' });
}
