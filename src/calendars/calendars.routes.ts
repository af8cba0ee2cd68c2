import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { wallTimeOf, instantOf } from '../../aggregates/calendar/occurrences.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { calendarAsICal } from './ical-export.js';
import { calendarSchema, createCalendarBodySchema, occurrenceSchema, toCalendar, toOccurrence, updateCalendarBodySchema } from './calendars.schemas.js';
import type { CalendarCaller, CalendarsService } from './calendars.service.js';

const tags = ['calendars'];
const params = z.object({ uuid: z.uuid() });
// Every member keeps calendars; who may read and change one is the calendar's rule (owner, shared teams, admins).
const member = { auth: {} };

export const callerOf = (request: FastifyRequest): CalendarCaller => ({ ctx: commandContext(request), admin: companyActor(request).role === 'ADMIN' || companyActor(request).superAdmin });
export const readerOf = (request: FastifyRequest) => ({ userUuid: companyActor(request).userUuid, admin: callerOf(request).admin });

const instant = (field: 'from' | 'to', raw: string): number => {
  const wall = wallTimeOf(raw, 'UTC');
  if (!wall) {
    const message = `${field} "${raw}" is not a date or an instant`;
    throw new DomainError('VALIDATION_FAILED', message, [{ message, type: 'INVALID_DATE', correctionSuggestion: 'Send 2026-03-01 (UTC midnight) or 2026-03-01T00:00:00+01:00', field: `querystring.${field}` }]);
  }
  return instantOf(wall, 'UTC');
};

/** Calendars (issue 39): `POST calendars/`, `POST calendars/index`, `GET PUT DELETE calendars/{uuid}`, restore, occurrences, iCalendar. */
export const calendarsRoutes = (deps: { calendars: CalendarsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { calendars } = deps;
    const render = (request: FastifyRequest, row: Parameters<typeof toCalendar>[0]) => app.audit.one(companyActor(request).tenant, row, toCalendar);

    app.post(
      '/',
      { config: member, schema: { tags, description: 'Creates a calendar owned by the caller, optionally shared (read-only) with teams.', body: createCalendarBodySchema, response: { 201: envelope(calendarSchema) } } },
      async (request, reply) => {
        reply.code(201);
        return ok(await render(request, await calendars.createCalendar(callerOf(request), request.body)), 'created');
      },
    );

    app.post(
      '/index',
      {
        config: member,
        schema: {
          tags,
          description: "The calendars you may see (yours, your teams', every one for admins), oldest first; `query` searches names; filter {key: 'deleted', operator: 'equals', value: true} lists the deleted ones.",
          body: paginationBody,
          response: { 200: listEnvelope(calendarSchema) },
        },
      },
      async (request) => {
        const { limit, page: n, query, filters } = request.body;
        const deleted = filters.some((f) => f.key === 'deleted' && f.value === true);
        const tenant = companyActor(request).tenant;
        const { rows, total } = await calendars.listCalendars(tenant, readerOf(request), { deleted, query, limit, offset: pageOffset(n, limit) });
        return page(await app.audit.all(tenant, rows, toCalendar), total, n, limit);
      },
    );

    app.get('/:uuid', { config: member, schema: { tags, params, response: { 200: envelope(calendarSchema) } } }, async (request) =>
      ok(await render(request, await calendars.calendar(companyActor(request).tenant, readerOf(request), request.params.uuid))),
    );

    app.put('/:uuid', { config: member, schema: { tags, description: "Changes a calendar (its owner or an admin): 403 for a member who may only read it.", params, body: updateCalendarBodySchema, response: { 200: envelope(calendarSchema) } } }, async (request) =>
      ok(await render(request, await calendars.updateCalendar(callerOf(request), request.params.uuid, request.body)), 'updated'),
    );

    app.delete('/:uuid', { config: member, schema: { tags, params, response: { 200: envelope(z.string()) } } }, async (request) => {
      await calendars.removeCalendar(callerOf(request), request.params.uuid);
      return ok('deleted', 'deleted');
    });

    app.post('/:uuid/restore', { config: member, schema: { tags, description: 'Restores a deleted calendar; 409 when it is not deleted.', params, response: { 200: envelope(calendarSchema) } } }, async (request) =>
      ok(await render(request, await calendars.restoreCalendar(callerOf(request), request.params.uuid)), 'restored'),
    );

    app.get(
      '/:uuid/occurrences',
      {
        config: member,
        schema: {
          tags,
          description: "The calendar's occurrences overlapping [from, to), recurrences expanded (cancelled ones left out, changed ones at their new times), in start order. At most 366 days and 5,000 occurrences.",
          params,
          querystring: z.object({ from: z.string().min(10).max(40).describe('2026-03-01 (UTC midnight) or an instant with an offset'), to: z.string().min(10).max(40) }),
          response: { 200: envelope(z.array(occurrenceSchema)) },
        },
      },
      async (request) => {
        const from = instant('from', request.query.from);
        const to = instant('to', request.query.to);
        const found = await calendars.occurrences(companyActor(request).tenant, readerOf(request), request.params.uuid, from, to);
        return ok(found.map(({ entry, occurrence }) => toOccurrence(entry, occurrence)));
      },
    );

    app.get(
      '/:uuid/ical',
      { config: member, schema: { tags, description: 'The calendar as iCalendar (RFC 5545, text/calendar): RRULEs, EXDATEs for cancelled occurrences, RECURRENCE-ID events for changed ones.', params } },
      async (request, reply) => {
        const { calendar, entries, emails } = await calendars.forExport(companyActor(request).tenant, readerOf(request), request.params.uuid);
        const text = calendarAsICal(calendar, entries, emails, 'platform');
        return reply.type('text/calendar; charset=utf-8').header('content-disposition', `attachment; filename="calendar-${calendar.calendar_uuid}.ics"`).send(text);
      },
    );
  };
