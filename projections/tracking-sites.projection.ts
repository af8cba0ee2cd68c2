import type { StoredEvent } from '../aggregates/kernel/events.js';
import { trackingSiteCompanyOfStream, trackingSiteEventTypes, type TrackingSiteEvent } from '../aggregates/tracking-site/tracking-site.events.js';
import type { Projection } from './projection.js';

/** `rm_tracking_sites`: a company's current public site key, guarded by the stream revision. */
export const trackingSitesProjection: Projection = {
  name: 'tracking-sites',
  tables: ['rm_tracking_sites'],
  handles: trackingSiteEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<TrackingSiteEvent> & TrackingSiteEvent;
    await tx.query(
      `insert into rm_tracking_sites (tenant, site_key, updated_at, updated_by, revision) values ($1, $2, $3, $4, $5)
       on conflict (tenant) do update set site_key = excluded.site_key, updated_at = excluded.updated_at, updated_by = excluded.updated_by, revision = excluded.revision
       where rm_tracking_sites.revision < excluded.revision`,
      [trackingSiteCompanyOfStream(stored.streamId), event.data.siteKey, stored.metadata.occurredAt, stored.metadata.userUuid, stored.revision],
    );
  },
};
