import type { StoredEvent } from '../aggregates/kernel/events.js';
import { pageTranslationEventTypes, type PageTranslationEvent } from '../aggregates/page/page-translation.events.js';
import type { Projection } from './projection.js';

/** `rm_page_translations`: both directions of every live link. Idempotent (insert or delete both rows). */
export const pageTranslationsProjection: Projection = {
  name: 'page-translations',
  tables: ['rm_page_translations'],
  handles: pageTranslationEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<PageTranslationEvent> & PageTranslationEvent;
    const { pageUuid, otherUuid } = event.data;
    if (event.type === 'PageTranslationLinked') {
      await tx.query('insert into rm_page_translations (tenant, page_uuid, other_uuid) values ($1, $2, $3), ($1, $3, $2) on conflict do nothing', [stored.tenant, pageUuid, otherUuid]);
    } else {
      await tx.query('delete from rm_page_translations where tenant = $1 and ((page_uuid = $2 and other_uuid = $3) or (page_uuid = $3 and other_uuid = $2))', [stored.tenant, pageUuid, otherUuid]);
    }
  },
};
