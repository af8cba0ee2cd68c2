import { randomUUID } from 'node:crypto';
import { cmsTransferDecider, type CmsTransferCommand, type CmsTransferState } from '../../aggregates/cms-transfer/cms-transfer.decider.js';
import { cmsTransferStream, type WebProject } from '../../aggregates/cms-transfer/cms-transfer.events.js';
import { invalid, notFound } from '../../aggregates/kernel/errors.js';
import { companyOf, type CompanyRow } from '../../read-models/companies.queries.js';
import { cmsTransferHistory, cmsTransferOf, type CmsTransferRow } from '../../read-models/cms-transfers.queries.js';
import type { Actor } from '../auth/actor.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';

const stateOf = (row: CmsTransferRow | null): CmsTransferState =>
  row ? { state: row.state, transferUuid: row.transfer_uuid, project: row.project, live: row.live, v1: row.v1 } : cmsTransferDecider.initialState();

/**
 * The CMS v2 transfer of one company (spec 1.18, 4.10): its state, attach, cutover, rollback and
 * the history of its transitions. The company is the path's: the caller's selected company, or
 * any for SUPER_ADMIN; another is the same 404 as one that does not exist.
 */
export function makeCmsTransferService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  async function company(actor: Actor, companyUuid: string): Promise<CompanyRow> {
    const row = companyUuid === actor.tenant || actor.superAdmin ? await companyOf(db, companyUuid) : null;
    if (!row) throw notFound('Company', companyUuid);
    return row;
  }

  // The read model is written in the append's transaction: it is the snapshot, no stream fold.
  const run = (context: CommandContext, command: (s: CmsTransferState) => CmsTransferCommand) =>
    handleCommand({
      store,
      decider: cmsTransferDecider,
      streamId: cmsTransferStream,
      command,
      context,
      snapshot: async () => {
        const row = await cmsTransferOf(db, context.tenant);
        return row ? { state: stateOf(row), revision: row.revision } : null;
      },
    });

  const status = async (tenant: string) => ({ tenant, row: await cmsTransferOf(db, tenant) });

  return {
    company,

    async status(actor: Actor, companyUuid: string) {
      return { company: await company(actor, companyUuid), row: (await status(companyUuid)).row };
    },

    async attach(actor: Actor, context: CommandContext, companyUuid: string, input: Omit<WebProject, 'previewHostname' | 'name'> & { name?: string; previewHostname?: string | null }) {
      const c = await company(actor, companyUuid);
      const project: WebProject = { projectId: input.projectId, name: input.name ?? input.projectId, repository: input.repository, schema: input.schema, previewHostname: input.previewHostname ?? null };
      await run({ ...context, tenant: companyUuid }, () => ({ type: 'AttachProject', transferUuid: randomUUID(), project }));
      return { company: c, row: (await status(companyUuid)).row };
    },

    async cutover(actor: Actor, context: CommandContext, companyUuid: string, input: { hostname?: string; schema?: string; repository?: string }) {
      const c = await company(actor, companyUuid);
      const hostname = input.hostname ?? c.settings.customDomain?.toLowerCase();
      if (!hostname) throw invalid('body.hostname', 'body.hostname: the company has no customDomain to move', 'Send the live hostname to move to the v2 runtime, e.g. {"hostname": "www.example.com"}', 'VALIDATION');
      await run({ ...context, tenant: companyUuid }, (s) => ({
        type: 'CutOver',
        // Without a project the decider refuses (409); the placeholders never reach an event.
        live: { hostname, schema: input.schema ?? s.project?.schema ?? '', repository: input.repository ?? s.project?.repository ?? '' },
        v1: { hostname, subdomain: c.subdomain },
      }));
      return { company: c, row: (await status(companyUuid)).row };
    },

    async rollback(actor: Actor, context: CommandContext, companyUuid: string, input: { reason?: string }) {
      const c = await company(actor, companyUuid);
      await run({ ...context, tenant: companyUuid }, () => ({ type: 'RollBack', reason: input.reason ?? '' }));
      return { company: c, row: (await status(companyUuid)).row };
    },

    async history(actor: Actor, companyUuid: string, o: { limit: number; offset: number }) {
      await company(actor, companyUuid);
      return cmsTransferHistory(db, companyUuid, o);
    },
  };
}
export type CmsTransferService = ReturnType<typeof makeCmsTransferService>;
