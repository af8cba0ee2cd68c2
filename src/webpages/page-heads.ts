import type { PageState } from '../../aggregates/page/page.decider.js';

/** A page's state at a stream revision, as a command on it left it or a read found it. */
export interface PageHead {
  state: PageState;
  revision: number;
}

/**
 * The pages this process last wrote (or read for a write), so that the module editor's next batch
 * on a page is decided without reading it first. Never trusted, only tried: a batch decided on a
 * head is appended at the head's stream revision, which fails when the page moved on meanwhile (a
 * write of another process, of another route), and then the command is decided again on the page
 * as read (`handleCommand`'s retry). A stream revision names exactly one state, so a head that is
 * not stale is the page. A page's record, environment and locale never change and a page is never
 * deleted, so the place of a page names it for good. At most `max` pages, the least recently used
 * going first.
 */
export function pageHeads(max = 256) {
  const heads = new Map<string, PageHead & { place: string | null }>();
  const places = new Map<string, string>();
  const placeKey = (tenant: string, recordUuid: string, environment: string, locale: string) => `${tenant}\u0000${recordUuid}\u0000${environment}\u0000${locale}`;
  const pageKey = (tenant: string, pageUuid: string) => `${tenant}\u0000${pageUuid}`;

  return {
    /** The head of the (non-template) page of a record in an environment and locale, if kept. */
    at(tenant: string, recordUuid: string, environment: string, locale: string): PageHead | undefined {
      const page = places.get(placeKey(tenant, recordUuid, environment, locale));
      if (page === undefined) return undefined;
      const head = heads.get(page);
      if (head) {
        heads.delete(page);
        heads.set(page, head);
      }
      return head && { state: head.state, revision: head.revision };
    },
    /** Keeps a page's state at `revision` (a template's too: it is never looked up by place). */
    remember(tenant: string, head: PageHead) {
      const info = head.state.info;
      if (!head.state.exists || !info) return;
      const page = pageKey(tenant, info.pageUuid);
      const kept = heads.get(page);
      if (kept && kept.revision > head.revision) return;
      const place = info.template ? null : placeKey(tenant, info.recordUuid, info.environment, info.locale);
      heads.delete(page);
      heads.set(page, { state: head.state, revision: head.revision, place });
      if (place !== null) places.set(place, page);
      if (heads.size > max) {
        const [oldest, dropped] = heads.entries().next().value!;
        heads.delete(oldest);
        if (dropped.place !== null) places.delete(dropped.place);
      }
    },
    /** Forgets a page (a batch decided on its head was refused: its next one reads it). */
    forget(tenant: string, pageUuid: string) {
      heads.delete(pageKey(tenant, pageUuid));
    },
  };
}
export type PageHeads = ReturnType<typeof pageHeads>;
