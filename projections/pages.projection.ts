import type { StoredEvent } from '../aggregates/kernel/events.js';
import { applyBatch, type PageDocument } from '../aggregates/page/page.document.js';
import { pageEventTypes, pageUuidOfStream, publicationEventTypes, type PageEvent, type PublicationEvent } from '../aggregates/page/page.events.js';
import { evolvePublication, type Publication } from '../aggregates/page/page.publication.js';
import { patchedWithAppend, SNAPSHOT_EVERY } from './pages.patched-with-append.js';
import type { Projection, Sql } from './projection.js';

export { SNAPSHOT_EVERY };

interface PageHead {
  document: PageDocument;
  published: boolean;
  ever_published: boolean;
  publish_at: string | number | null;
  unpublish_at: string | number | null;
}

const num = (v: string | number | null) => (v === null ? null : Number(v));

async function revisionRow(tx: Sql, e: StoredEvent, revision: number, kind: string, ops: unknown, restoredFrom: number | null) {
  const m = e.metadata;
  await tx.query(
    `insert into rm_page_revisions (tenant, page_uuid, revision, stream_revision, kind, ops, restored_from, at, user_uuid, request_id)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10) on conflict do nothing`,
    [e.tenant, pageUuidOfStream(e.streamId), revision, e.revision, kind, JSON.stringify(ops), restoredFrom, m.occurredAt, m.userUuid, m.requestId],
  );
}

const snapshotRow = (tx: Sql, e: StoredEvent, document: PageDocument) =>
  tx.query(`insert into rm_page_snapshots (tenant, page_uuid, revision, document) values ($1, $2, $3, $4::jsonb) on conflict do nothing`, [
    e.tenant,
    pageUuidOfStream(e.streamId),
    document.revision,
    JSON.stringify(document),
  ]);

/** The document's columns: the document itself, and its title and slug for lookups. */
async function writeDocument(tx: Sql, e: StoredEvent, document: PageDocument) {
  await tx.query(
    `update rm_pages set document = $4::jsonb, doc_revision = $5, title = $6, slug = $7, revision = $3, updated_at = $8, updated_by = $9
      where tenant = $1 and page_uuid = $2 and revision < $3`,
    [e.tenant, pageUuidOfStream(e.streamId), e.revision, JSON.stringify(document), document.revision, document.title, document.slug, e.metadata.occurredAt, e.metadata.userUuid],
  );
}

/**
 * `rm_pages` (one row per page, guarded by the stream revision), its history (`rm_page_revisions`,
 * `rm_page_snapshots`) and its publication log (`rm_page_publications`). Idempotent: every insert
 * is `on conflict do nothing`, every update waits for a newer stream revision.
 */
export const pagesProjection: Projection = {
  name: 'pages',
  tables: ['rm_pages', 'rm_page_revisions', 'rm_page_snapshots', 'rm_page_publications'],
  handles: pageEventTypes,
  // PostgreSQL: a patch is written by its append statement (one round trip, the document not read back).
  withAppend: [patchedWithAppend],
  async apply(stored, tx) {
    const event = stored as StoredEvent<PageEvent> & PageEvent;
    const { tenant, revision } = stored;
    const uuid = pageUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    if ((publicationEventTypes as readonly string[]).includes(event.type)) {
      await tx.query(`insert into rm_page_publications (tenant, page_uuid, stream_revision, at, event) values ($1, $2, $3, $4, $5::jsonb) on conflict do nothing`, [
        tenant,
        uuid,
        revision,
        at,
        JSON.stringify({ type: event.type, version: event.version, data: event.data }),
      ]);
    }
    switch (event.type) {
      case 'PageCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_pages (tenant, page_uuid, record_uuid, object_uuid, object_name, environment, locale, template, slug, title, document, doc_revision,
             protection, published, ever_published, idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13::jsonb, false, false, (select count(*) from rm_pages where tenant = $1), $14, $14, $15, $15, $16)
           on conflict (tenant, page_uuid) do nothing`,
          [tenant, uuid, d.recordUuid, d.objectUuid, d.objectName, d.environment, d.locale, d.template, d.document.slug, d.document.title, JSON.stringify(d.document), d.document.revision, JSON.stringify(d.protection), at, by, revision],
        );
        await revisionRow(tx, stored, d.document.revision, 'created', [], null);
        await snapshotRow(tx, stored, d.document);
        return;
      }
      case 'PagePatched':
      case 'PageRevisionRestored': {
        const [head] = await tx.query<PageHead>('select document from rm_pages where tenant = $1 and page_uuid = $2 and revision < $3 for update', [tenant, uuid, revision]);
        if (!head) return;
        if (event.type === 'PagePatched') {
          const document = applyBatch(head.document, event.data.ops, event.data.revision);
          await writeDocument(tx, stored, document);
          await revisionRow(tx, stored, document.revision, 'patched', event.data.ops, null);
          if (document.revision % SNAPSHOT_EVERY === 0) await snapshotRow(tx, stored, document);
        } else {
          await writeDocument(tx, stored, event.data.document);
          await revisionRow(tx, stored, event.data.revision, 'restored', [], event.data.fromRevision);
          await snapshotRow(tx, stored, event.data.document);
        }
        return;
      }
      case 'PageTemplateChanged':
        // Nothing to show: the row only keeps up with the stream (its revision is the write path's snapshot).
        await tx.query('update rm_pages set revision = $3 where tenant = $1 and page_uuid = $2 and revision < $3', [tenant, uuid, revision]);
        return;
      case 'PageProtectionChanged':
        await tx.query(`update rm_pages set protection = $4::jsonb, revision = $3, updated_at = $5, updated_by = $6 where tenant = $1 and page_uuid = $2 and revision < $3`, [
          tenant,
          uuid,
          revision,
          JSON.stringify(event.data.protection),
          at,
          by,
        ]);
        return;
      default: {
        const [head] = await tx.query<PageHead>('select published, ever_published, publish_at, unpublish_at from rm_pages where tenant = $1 and page_uuid = $2 and revision < $3', [tenant, uuid, revision]);
        if (!head) return;
        const before: Publication = { published: head.published, everPublished: head.ever_published, publishAt: num(head.publish_at), unpublishAt: num(head.unpublish_at) };
        const p = evolvePublication(before, event as PublicationEvent);
        const scheduling = event.type === 'PagePublishScheduled' || event.type === 'PageUnpublishScheduled';
        await tx.query(
          `update rm_pages set published = $4, ever_published = $5, publish_at = $6, unpublish_at = $7, schedule_request = case when $8 then $9 else schedule_request end,
             revision = $3, updated_at = $10, updated_by = $11
           where tenant = $1 and page_uuid = $2 and revision < $3`,
          [tenant, uuid, revision, p.published, p.everPublished, p.publishAt, p.unpublishAt, scheduling, stored.metadata.requestId, at, by],
        );
      }
    }
  },
};
