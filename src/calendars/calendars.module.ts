import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { calendarEventsRoutes } from './calendar-events.routes.js';
import { calendarsRoutes } from './calendars.routes.js';
import { makeCalendarsService } from './calendars.service.js';

/** Calendars (issue 39): members' calendars shared with teams, their events and occurrences, under /api/v2/calendars. */
export async function registerCalendars(app: FastifyInstance, deps: { db: Db; store: EventStore }) {
  const calendars = makeCalendarsService(deps);
  await app.register(calendarsRoutes({ calendars }), { prefix: '/api/v2/calendars' });
  await app.register(calendarEventsRoutes({ calendars }), { prefix: '/api/v2/calendars' });
  return { calendars };
}
