import { invalid } from '../../aggregates/kernel/errors.js';
import type { PageDocument } from '../../aggregates/page/page.document.js';
import { documentAt, revisionsOf, type RevisionRow } from '../../read-models/pages.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { PagesService } from './pages.service.js';
import { viewOfState } from './pages.service.js';

export const toHistoryEntry = (r: RevisionRow) => ({
  index: r.revision,
  kind: r.kind,
  restoredFrom: r.restored_from,
  ops: r.ops as Record<string, unknown>[],
  at: r.at,
  by: r.user_uuid ? { uuid: r.user_uuid } : null,
  requestId: r.request_id,
});

/** A page's revisions: listed, read one by one (snapshot + ops), and restored as a new revision. */
export function makePageHistory(deps: { db: Db; pages: PagesService }) {
  const { db, pages } = deps;

  async function documentOf(tenant: string, pageUuid: string, index: number): Promise<PageDocument> {
    const doc = await documentAt(db, tenant, pageUuid, index);
    if (!doc) throw invalid('params.index', `params.index: the page has no revision ${index}`, 'Use an index of the page history (0 is the page as created)', 'INVALID_VALUE');
    return doc;
  }

  return {
    list: (tenant: string, pageUuid: string, limit: number, offset: number) => revisionsOf(db, tenant, pageUuid, limit, offset),
    documentOf,

    async restore(context: CommandContext, recordUuid: string, environment: string | undefined, locale: string, index: number) {
      const row = await pages.pageOf(context.tenant, recordUuid, environment, locale);
      const snapshot = index >= 0 && index <= row.doc_revision ? await documentAt(db, context.tenant, row.page_uuid, index) : null;
      const handled = await pages.run(context.tenant, row.page_uuid, { type: 'RestoreRevision', fromRevision: index, snapshot }, context);
      return pages.dto(viewOfState(handled.state), context.tenant);
    },
  };
}
export type PageHistory = ReturnType<typeof makePageHistory>;
