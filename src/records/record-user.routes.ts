import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { errorBodySchema } from '../http/error-body.js';
import { optionalBody } from '../http/optional-body.js';
import { recordsViews } from './record-json.js';
import { recordSchema } from './record-view.js';
import type { RecordReads } from './records.reads.js';
import type { RecordsService } from './records.service.js';

const errors = Object.fromEntries([400, 401, 403, 404, 409].map((c) => [c, errorBodySchema]));
const params = z.object({ uuid: z.uuid() });
const admin = { auth: { roles: ['ADMIN'] as const } };
const linkBody = optionalBody(z.object({ userUuid: z.uuid().optional().describe("A member of the company; omitted: the member the record's e-mail property names") }).strict(), () => ({}));

/**
 * The User trait (spec 1.6, 2.2) from the record's side: which platform user of the company a
 * profile record belongs to. A record links itself by its e-mail property on create and update
 * (records.service.ts); these routes link or unlink it explicitly. docs/records.md "User trait".
 */
export const recordUserRoutes = (deps: { records: RecordsService; reads: RecordReads }): FastifyPluginAsyncZod =>
  async (app) => {
    const { records, reads } = deps;
    const answer = async (tenant: string, uuid: string) => recordsViews(await reads.one(tenant, uuid, undefined, { format: 'USER_FRIENDLY', parse: 'raw' }))[0];

    app.put(
      '/records/:uuid/user',
      {
        config: admin,
        schema: {
          tags: ['records'],
          description:
            "Links the record (of an object with the User trait) to a member of the company: `userUuid`, or without it the member whose e-mail the record's e-mail property holds. Another company's user, or no user, is a 404; a user who is another record's already is a 409. Answers the record, its `user` set.",
          params,
          body: linkBody,
          response: { 200: envelope(recordSchema), ...errors },
        },
      },
      async (request) => {
        await records.linkUser(commandContext(request), request.params.uuid, request.body.userUuid);
        return ok(await answer(companyActor(request).tenant, request.params.uuid), 'linked');
      },
    );

    app.delete(
      '/records/:uuid/user',
      { config: admin, schema: { tags: ['records'], description: 'Unlinks the record from its user (nothing happens when it has none). Answers the record.', params, response: { 200: envelope(recordSchema), ...errors } } },
      async (request) => {
        await records.unlinkUser(commandContext(request), request.params.uuid);
        return ok(await answer(companyActor(request).tenant, request.params.uuid), 'unlinked');
      },
    );
  };
