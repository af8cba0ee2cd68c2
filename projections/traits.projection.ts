import type { StoredEvent } from '../aggregates/kernel/events.js';
import { traitEventTypes, type TraitEvent } from '../aggregates/trait/trait.events.js';
import type { Projection } from './projection.js';
import { advance } from './schema-rows.js';

/** `rm_traits`: one row per (object, trait) stream; removal keeps the row with removed_at set. */
export const traitsProjection: Projection = {
  name: 'traits',
  tables: ['rm_traits'],
  handles: traitEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<TraitEvent> & TraitEvent;
    const at = stored.metadata.occurredAt;
    switch (event.type) {
      case 'TraitConfigured': {
        const d = event.data;
        await tx.query(
          `insert into rm_traits (tenant, object_uuid, trait, config, created_at, updated_at, revision, created_by, updated_by) values ($1, $2, $3, $4::jsonb, $5, $5, $6, $7, $7)
           on conflict (tenant, object_uuid, trait) do update
             set config = excluded.config, updated_at = excluded.updated_at, revision = excluded.revision, updated_by = excluded.updated_by,
                 created_at = case when rm_traits.removed_at is null then rm_traits.created_at else excluded.created_at end,
                 created_by = case when rm_traits.removed_at is null then rm_traits.created_by else excluded.created_by end, removed_at = null
             where rm_traits.revision < excluded.revision`,
          [stored.tenant, d.objectUuid, d.trait, JSON.stringify(d.config), at, stored.revision, stored.metadata.userUuid],
        );
        return;
      }
      case 'TraitRemoved':
        await advance(tx, stored, 'rm_traits', { tenant: stored.tenant, object_uuid: event.data.objectUuid, trait: event.data.trait }, { removed_at: at, updated_by: stored.metadata.userUuid });
        return;
    }
  },
};
