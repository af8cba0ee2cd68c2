import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import type { FileStored } from '../../aggregates/file/file.events.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { listForms } from '../../read-models/forms.queries.js';
import type { FilesService } from '../files/files.service.js';
import { noFile, sendUploadFailure, storePart } from '../files/uploads.js';
import { TooLargeError } from '../files/inspect-upload.js';
import { answerFactsFor } from './form-facts.js';
import type { FormSubmissions } from './form-submissions.service.js';
import { HONEYPOT_FIELD, publicFormSchema, submitAnswerSchema, submitBodySchema, toPublicForm } from './public-forms.schemas.js';
import { submitLimiter } from './submit-limiter.js';
import { storedUserAgent, truncatedAddress } from './visitor.js';

const tags = ['forms (public)'];
const pub = { auth: 'public' as const };
const company = z.object({ companyUuid: z.uuid() });
const formParams = z.object({ companyUuid: z.uuid(), formUuid: z.uuid() });

/** A visitor's command: the company's tenant, no user. */
const visitorContext = (request: FastifyRequest, tenant: string): CommandContext => ({ tenant, userUuid: null, requestId: request.id, now: Date.now() });

/**
 * Public forms (spec 4.5, 5.2): no login. Read a published form (what a visitor needs only), list
 * a company's published forms, submit (or check one step), upload a file for a file field. An
 * unpublished, deleted or another company's form is the same 404.
 */
export const publicFormsRoutes = (deps: { db: Db; config: Config; submissions: FormSubmissions; files: FilesService | null }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, config, submissions, files } = deps;
    const limiter = submitLimiter(config.FORMS_RATE_LIMIT_MAX, config.FORMS_RATE_LIMIT_WINDOW_MS);
    const limit = (request: FastifyRequest, formUuid: string) => limiter.take(`${request.ip}\u0000${formUuid}`);

    app.get('/:companyUuid/:formUuid', { config: pub, schema: { tags, description: 'A published form of the company, as a visitor renders it.', params: formParams, response: { 200: envelope(publicFormSchema) } } }, async (request) => {
      const tenant = request.params.companyUuid.toLowerCase();
      const formUuid = request.params.formUuid.toLowerCase();
      const row = await submissions.published(tenant, formUuid);
      const facts = await answerFactsFor(db, tenant, row.settings);
      if (!facts) throw notFound('Form', formUuid);
      return ok(toPublicForm(formUuid, row.settings, facts.definitions, facts.innerDefinitions));
    });

    app.post(
      '/:companyUuid/index',
      {
        config: pub,
        schema: { tags, description: "The company's published forms (uuid, name, label).", params: company, body: paginationBody, response: { 200: listEnvelope(z.object({ uuid: z.string(), name: z.string(), label: z.string() })) } },
      },
      async (request) => {
        const { limit: perPage, page: n } = request.body;
        const { rows, total } = await listForms(db, request.params.companyUuid.toLowerCase(), { deleted: false, publishedOnly: true, limit: perPage, offset: pageOffset(n, perPage) });
        return page(rows.map((r) => ({ uuid: r.form_uuid, name: r.name, label: r.label })), total, n, perPage);
      },
    );

    app.post(
      '/:companyUuid/:formUuid/submit',
      {
        config: pub,
        bodyLimit: config.FORMS_BODY_LIMIT_BYTES,
        schema: {
          tags,
          description: 'Submits a form: creates its record, the inner forms\' records and their connections in one command. With ?step=N only that step is checked and nothing is created. Rate limited per address and form; send clientSubmissionId (or an Idempotency-Key) so a retry creates nothing twice.',
          params: formParams,
          querystring: z.object({ step: z.coerce.number().int().min(0).max(100).optional() }),
          body: submitBodySchema,
          response: { 200: envelope(submitAnswerSchema), 201: envelope(submitAnswerSchema) },
        },
      },
      async (request, reply) => {
        const tenant = request.params.companyUuid.toLowerCase();
        const formUuid = request.params.formUuid.toLowerCase();
        const { step } = request.query;
        limit(request, formUuid);
        const body = request.body;
        const answers = { answers: body.answers, inner: body.inner, clientSubmissionId: body.clientSubmissionId };
        const visitor = { address: truncatedAddress(request.ip), userAgent: storedUserAgent(request.headers['user-agent']) };
        if (body[HONEYPOT_FIELD]) {
          // A bot: it hears what a person would, and nothing is created.
          const row = await submissions.published(tenant, formUuid);
          reply.code(201);
          return ok({ submissionUuid: randomUUID(), step: null, valid: true, successMessage: row.settings.successMessage, redirectUrl: row.settings.redirectUrl }, 'created');
        }
        const done = await submissions.submit(visitorContext(request, tenant), formUuid, answers, visitor, step);
        if (!done) return ok({ submissionUuid: null, step: step ?? null, valid: true, successMessage: null, redirectUrl: null }, 'valid');
        reply.code(done.created ? 201 : 200);
        const s = done.row.settings;
        return ok({ submissionUuid: done.submissionUuid, step: null, valid: true, successMessage: s.successMessage, redirectUrl: s.redirectUrl }, done.created ? 'created' : 'already received');
      },
    );

    app.post(
      '/:companyUuid/:formUuid/upload',
      {
        config: { ...pub, upload: { files: 'one' } },
        schema: {
          tags,
          description: "Uploads one file for a file field of a published form (multipart/form-data, the first file part; ?property names the field). Answer the field with the returned file uuid. The field's options list the accepted types.",
          params: formParams,
          querystring: z.object({ property: z.string().min(1).max(200) }),
          response: { 201: envelope(z.object({ fileUuid: z.string(), name: z.string(), size: z.number(), contentType: z.string() })) },
        },
      },
      async (request, reply) => {
        const tenant = request.params.companyUuid.toLowerCase();
        const formUuid = request.params.formUuid.toLowerCase();
        limit(request, formUuid);
        const row = await submissions.published(tenant, formUuid);
        const { property } = request.query;
        const facts = await answerFactsFor(db, tenant, row.settings);
        const def = facts?.definitions.find((d) => d.name === property);
        const asked = row.settings.items.some((i) => i.kind === 'property' && i.property === property);
        if (!files || !asked || !def || def.format !== 'file') {
          throw new DomainError('VALIDATION_FAILED', `${property} is no file field of the form`, [{ field: 'query.property', message: `query.property: the form has no file field "${property.slice(0, 60)}"`, type: 'INVALID_VALUE', correctionSuggestion: 'Name a file field of the form' }]);
        }
        const max = config.FORMS_UPLOAD_MAX_BYTES;
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > max + 4096) return sendUploadFailure(request, reply, new TooLargeError('file', max));
        const part = await request.file();
        if (!part) throw noFile();
        let stored: FileStored;
        try {
          stored = await storePart(files, tenant, part, { accepted: (def.options ?? []).map((o) => String(o.value)), visibility: 'private', pageUuid: null }, { left: max, maxFile: max });
        } catch (err) {
          return sendUploadFailure(request, reply, err, property);
        }
        const file = await files.commit(visitorContext(request, tenant), stored);
        reply.code(201);
        return ok({ fileUuid: file.file_uuid, name: file.name, size: Number(file.size), contentType: file.content_type }, 'created');
      },
    );
  };
