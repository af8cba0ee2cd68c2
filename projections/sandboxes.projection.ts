import type { StoredEvent } from '../aggregates/kernel/events.js';
import { sandboxEventTypes, sandboxUuidOfStream, type SandboxEvent } from '../aggregates/sandbox/sandbox.events.js';
import type { Projection } from './projection.js';

/** `rm_sandboxes`: one row per sandbox in the owning company's tenant, guarded by the stream revision. */
export const sandboxesProjection: Projection = {
  name: 'sandboxes',
  tables: ['rm_sandboxes'],
  handles: sandboxEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<SandboxEvent> & SandboxEvent;
    const { tenant, revision } = stored;
    const uuid = sandboxUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    const set = (sets: string, params: unknown[] = []) =>
      tx.query(`update rm_sandboxes set revision = $3, updated_at = $4, updated_by = $5, ${sets} where tenant = $1 and sandbox_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by, ...params]);
    switch (event.type) {
      case 'SandboxRequested': {
        const d = event.data;
        await tx.query(
          `insert into rm_sandboxes (tenant, sandbox_uuid, name, status, as_of_position, as_of_time, up_to_position, total, copied, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, 'cloning', $4, $5, $6, $7, 0, $8, $8, $9, $9, $10) on conflict do nothing`,
          [tenant, uuid, d.name, d.asOf.position, d.asOf.time, d.upToPosition, d.total, at, by, revision],
        );
        return;
      }
      case 'SandboxCloneProgressed':
        await set('copied = $6', [event.data.copied]);
        return;
      case 'SandboxReady':
        await set(`status = 'ready', copied = $6, last_position = $7`, [event.data.copied, event.data.lastPosition]);
        return;
      case 'SandboxCloneFailed':
        await set(`status = 'failed', failure = $6`, [event.data.reason]);
        return;
      case 'SandboxReactorsChanged':
        await set('reactors_enabled = $6', [event.data.enabled]);
        return;
      case 'SandboxDeleted':
        await set('deleted_at = $4, deleted_by = $5');
        return;
    }
  },
};
