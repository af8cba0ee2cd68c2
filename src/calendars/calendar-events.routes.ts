import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { createEntryBodySchema, entrySchema, occurrenceBodySchema, occurrenceIdParam, toEntry, updateEntryBodySchema } from './calendars.schemas.js';
import type { CalendarsService } from './calendars.service.js';
import { callerOf, readerOf } from './calendars.routes.js';

const tags = ['calendars'];
const calendarParams = z.object({ uuid: z.uuid() });
const params = z.object({ uuid: z.uuid(), eventUuid: z.uuid() });
const occurrenceParams = params.extend({ occurrenceId: occurrenceIdParam });
const member = { auth: {} };

/** The events of a calendar: `POST calendars/{uuid}/events`, `.../events/index`, `GET PUT DELETE .../events/{eventUuid}`, restore, and one occurrence. */
export const calendarEventsRoutes = (deps: { calendars: CalendarsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { calendars } = deps;
    const render = (request: FastifyRequest, row: Parameters<typeof toEntry>[0]) => app.audit.one(companyActor(request).tenant, row, toEntry);

    app.post(
      '/:uuid/events',
      { config: member, schema: { tags, description: 'Schedules an event in the calendar (its owner or an admin): a single one, or a series with an RRULE.', params: calendarParams, body: createEntryBodySchema, response: { 201: envelope(entrySchema) } } },
      async (request, reply) => {
        reply.code(201);
        return ok(await render(request, await calendars.scheduleEntry(callerOf(request), request.params.uuid, request.body)), 'created');
      },
    );

    app.post(
      '/:uuid/events/index',
      {
        config: member,
        schema: {
          tags,
          description: "The calendar's events (series, not occurrences), by first start; `query` searches titles and locations; filter {key: 'deleted', operator: 'equals', value: true} lists the deleted ones.",
          params: calendarParams,
          body: paginationBody,
          response: { 200: listEnvelope(entrySchema) },
        },
      },
      async (request) => {
        const { limit, page: n, query, filters } = request.body;
        const deleted = filters.some((f) => f.key === 'deleted' && f.value === true);
        const tenant = companyActor(request).tenant;
        const { rows, total } = await calendars.listEntries(tenant, readerOf(request), request.params.uuid, { deleted, query, limit, offset: pageOffset(n, limit) });
        return page(await app.audit.all(tenant, rows, toEntry), total, n, limit);
      },
    );

    app.get('/:uuid/events/:eventUuid', { config: member, schema: { tags, params, response: { 200: envelope(entrySchema) } } }, async (request) =>
      ok(await render(request, await calendars.entry(companyActor(request).tenant, readerOf(request), request.params.uuid, request.params.eventUuid))),
    );

    app.put(
      '/:uuid/events/:eventUuid',
      { config: member, schema: { tags, description: 'Changes the whole series. A new start, zone or rule drops the changed occurrences that are no longer occurrences of it.', params, body: updateEntryBodySchema, response: { 200: envelope(entrySchema) } } },
      async (request) => ok(await render(request, await calendars.changeEntry(callerOf(request), request.params.uuid, request.params.eventUuid, request.body)), 'updated'),
    );

    app.delete('/:uuid/events/:eventUuid', { config: member, schema: { tags, params, response: { 200: envelope(z.string()) } } }, async (request) => {
      await calendars.removeEntry(callerOf(request), request.params.uuid, request.params.eventUuid);
      return ok('deleted', 'deleted');
    });

    app.post('/:uuid/events/:eventUuid/restore', { config: member, schema: { tags, description: 'Restores a deleted event; 409 when it is not deleted.', params, response: { 200: envelope(entrySchema) } } }, async (request) =>
      ok(await render(request, await calendars.restoreEntry(callerOf(request), request.params.uuid, request.params.eventUuid)), 'restored'),
    );

    app.put(
      '/:uuid/events/:eventUuid/occurrences/:occurrenceId',
      { config: member, schema: { tags, description: 'Changes one occurrence of a series (moves it, renames it); the series keeps its rule.', params: occurrenceParams, body: occurrenceBodySchema, response: { 200: envelope(entrySchema) } } },
      async (request) => ok(await render(request, await calendars.occurrence(callerOf(request), request.params.uuid, request.params.eventUuid, request.params.occurrenceId, { type: 'change', input: request.body })), 'updated'),
    );

    app.delete(
      '/:uuid/events/:eventUuid/occurrences/:occurrenceId',
      { config: member, schema: { tags, description: 'Cancels one occurrence of a series (an EXDATE); repeating it changes nothing.', params: occurrenceParams, response: { 200: envelope(entrySchema) } } },
      async (request) => ok(await render(request, await calendars.occurrence(callerOf(request), request.params.uuid, request.params.eventUuid, request.params.occurrenceId, { type: 'cancel' })), 'deleted'),
    );

    app.post(
      '/:uuid/events/:eventUuid/occurrences/:occurrenceId/restore',
      { config: member, schema: { tags, description: 'Puts one changed or cancelled occurrence back as its series has it.', params: occurrenceParams, response: { 200: envelope(entrySchema) } } },
      async (request) => ok(await render(request, await calendars.occurrence(callerOf(request), request.params.uuid, request.params.eventUuid, request.params.occurrenceId, { type: 'reset' })), 'restored'),
    );
  };
