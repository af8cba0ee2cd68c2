import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { pageOffset, paginationBody } from '../http/pagination.js';
import { attachBodySchema, cmsTransferHistoryItemSchema, cmsTransferSchema, cutoverBodySchema, rollbackBodySchema, toCmsTransfer, toHistoryItem } from './cms-transfer.schemas.js';
import type { CmsTransferService } from './cms-transfer.service.js';

const tags = ['cms-transfer'];
const params = z.object({ companyUuid: z.uuid() });
// A company's move of its live site is its admins' (and the platform operator's) decision.
const admin = { auth: { roles: ['ADMIN' as const] } };
const states = 'States: not_started, attached, cut_over, rolled_back (docs/cms.md).';

/**
 * The CMS v2 transfer (spec 1.18, 4.10) under /api/v2/company/{companyUuid}/cms-transfer. The
 * company is the caller's selected company (SUPER_ADMIN: any); another is a 404.
 */
export const cmsTransferRoutes = (deps: { transfers: CmsTransferService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { transfers } = deps;
    const answer = (r: Awaited<ReturnType<CmsTransferService['status']>>) => toCmsTransfer(r.company, r.row);

    app.get('/:companyUuid/cms-transfer', { config: admin, schema: { tags, description: `The company's transfer status. ${states}`, params, response: { 200: envelope(cmsTransferSchema) } } }, async (request) =>
      ok(answer(await transfers.status(companyActor(request), request.params.companyUuid))),
    );

    app.post(
      '/:companyUuid/cms-transfer/attach',
      {
        config: admin,
        schema: { tags, description: `Attaches a web project made by hand in the v2 runtime (a new transfer). Repeating it with the same project changes nothing; 409 while the live site is on v2. ${states}`, params, body: attachBodySchema, response: { 200: envelope(cmsTransferSchema) } },
      },
      async (request) => ok(answer(await transfers.attach(companyActor(request), commandContext(request), request.params.companyUuid, request.body)), 'attached'),
    );

    app.post(
      '/:companyUuid/cms-transfer/cutover',
      {
        config: admin,
        schema: { tags, description: `Moves the live hostname to the v2 runtime, recording the hostname, schema and repository and the v1 project it leaves. Repeating it with the same settings changes nothing; 409 without an attached project or when live on v2 with other settings. ${states}`, params, body: cutoverBodySchema, response: { 200: envelope(cmsTransferSchema) } },
      },
      async (request) => ok(answer(await transfers.cutover(companyActor(request), commandContext(request), request.params.companyUuid, request.body)), 'cut over'),
    );

    app.post(
      '/:companyUuid/cms-transfer/rollback',
      {
        config: admin,
        schema: { tags, description: `Returns the live hostname to the stored v1 project. Repeating it changes nothing; 409 when the site was never cut over. ${states}`, params, body: rollbackBodySchema, response: { 200: envelope(cmsTransferSchema) } },
      },
      async (request) => ok(answer(await transfers.rollback(companyActor(request), commandContext(request), request.params.companyUuid, request.body)), 'rolled back'),
    );

    app.post(
      '/:companyUuid/cms-transfer/history/index',
      { config: admin, schema: { tags, description: "Every transition of the company's transfers, oldest first (pagination request of spec 2.1).", params, body: paginationBody, response: { 200: listEnvelope(cmsTransferHistoryItemSchema) } } },
      async (request) => {
        const { limit, page: n } = request.body;
        const { rows, total } = await transfers.history(companyActor(request), request.params.companyUuid, { limit, offset: pageOffset(n, limit) });
        return page(rows.map(toHistoryItem), total, n, limit);
      },
    );
  };
