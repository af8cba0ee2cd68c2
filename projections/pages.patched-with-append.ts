import type { PageDocument } from '../aggregates/page/page.document.js';
import type { PageState } from '../aggregates/page/page.decider.js';
import { PAGE_STREAM_PREFIX, pageUuidOfStream, type PageEvent } from '../aggregates/page/page.events.js';
import type { FusedWrite, PendingEvent } from './projection.js';

type Patched = Extract<PageEvent, { type: 'PagePatched' }>;

/** Every this many document revisions the whole document is kept, so a revision read replays few batches. */
export const SNAPSHOT_EVERY = 100;

const inputColumns = `tenant text, uuid uuid, expected bigint, revision bigint, doc jsonb, doc_revision int, title text, slug text,
    at bigint, by uuid, ops jsonb, request_id text, snap boolean`;

/**
 * What `pagesProjection` writes for a `PagePatched` (the page's row, its revision row, a snapshot
 * every SNAPSHOT_EVERY revisions), as CTEs of the append statement, with the document taken from
 * the writer's state after the patch instead of read back and patched again. Only pages whose
 * append was made (`heads`), only rows still at the stream revision the writer decided on; when a
 * row was not (or a unique slug refused the change), `check` fails the statement and the store
 * appends the usual way, through the projection. Its answer to each patch's writer is what the
 * editor's reply adds to the page: the record's values and the record's locales.
 */
function patchedRowsWithAppend(param: string) {
  const ctes = `pin as (
  select x.* from jsonb_to_recordset(${param}::jsonb) as x(${inputColumns})
   where exists (select 1 from heads h where h.tenant = x.tenant and h.stream_id = '${PAGE_STREAM_PREFIX}' || x.uuid::text)
),
pu as (
  update rm_pages p set document = x.doc, doc_revision = x.doc_revision, title = x.title, slug = x.slug, revision = x.revision, updated_at = x.at, updated_by = x.by
    from pin x where p.tenant = x.tenant and p.page_uuid = x.uuid and p.revision = x.expected
  returning p.tenant, p.page_uuid
),
prev as (
  insert into rm_page_revisions (tenant, page_uuid, revision, stream_revision, kind, ops, restored_from, at, user_uuid, request_id)
  select x.tenant, x.uuid, x.doc_revision, x.revision, 'patched', x.ops, null, x.at, x.by, x.request_id from pin x
  on conflict do nothing
),
psnap as (
  insert into rm_page_snapshots (tenant, page_uuid, revision, document)
  select x.tenant, x.uuid, x.doc_revision, x.doc from pin x where x.snap
  on conflict do nothing
)`;
  // A page appended whose row was not at the revision decided on: the uuid read as an integer fails the statement.
  const check = `(select count(*) from pin x
     where (case when not exists (select 1 from pu where pu.tenant = x.tenant and pu.page_uuid = x.uuid) then x.uuid::text end)::int is not null)`;
  // What the module editor's reply adds to the page (read-models/pages.queries.ts `pageExtras`):
  // the record's values and the locales of the record's pages in the environment. The row is read
  // as it was before the update (the statement's snapshot): record, environment and locale never change.
  const answer = `(select coalesce(json_agg(json_build_object('tenant', x.tenant, 'stream_id', '${PAGE_STREAM_PREFIX}' || x.uuid::text, 'answer', json_build_object(
      'vals', (select r.vals from records r where r.tenant = p.tenant and r.uuid = p.record_uuid and r.is_primary),
      'locales', (select array_agg(o.locale order by o.locale) from rm_pages o where o.tenant = p.tenant and o.record_uuid = p.record_uuid and o.environment = p.environment and not o.template)))), '[]')
     from pin x join rm_pages p on p.tenant = x.tenant and p.page_uuid = x.uuid)`;
  return { ctes, check, answer };
}

const documentOf = (e: PendingEvent): PageDocument | null => {
  const s = e.stateAfter as PageState | undefined;
  return s && s.exists === true && typeof s.document === 'object' && s.document !== null ? s.document : null;
};

/** The input of `patchedRowsWithAppend`: one entry per patched page; the document serialised once, here. */
function patchedRowsInput(events: readonly PendingEvent[]): string {
  const rows = events.map((e) => {
    const doc = documentOf(e)!;
    const { ops } = (e as unknown as { data: Patched['data'] }).data;
    const m = e.metadata;
    return `{"tenant":${JSON.stringify(e.tenant)},"uuid":"${pageUuidOfStream(e.streamId)}","expected":${e.revision - 1},"revision":${e.revision},"doc":${JSON.stringify(doc)},"doc_revision":${doc.revision},"title":${JSON.stringify(doc.title)},"slug":${JSON.stringify(doc.slug)},"at":${m.occurredAt},"by":${JSON.stringify(m.userUuid)},"ops":${JSON.stringify(ops)},"request_id":${JSON.stringify(m.requestId)},"snap":${doc.revision % SNAPSHOT_EVERY === 0}}`;
  });
  return `[${rows.join(',')}]`;
}

/** A patch of a page whose writer gave its state after the patch (the only event of its append): written with its append. */
export const patchedWithAppend: FusedWrite = {
  name: 'append_with_page_patches',
  accepts: (e) => e.type === 'PagePatched' && e.revision > 0 && documentOf(e)?.revision === (e.data as Patched['data']).revision,
  sql: patchedRowsWithAppend,
  input: patchedRowsInput,
};
