import type { StoredEvent } from '../aggregates/kernel/events.js';
import { fileEventTypes, fileUuidOfStream, type FileEvent } from '../aggregates/file/file.events.js';
import type { Projection } from './projection.js';

/**
 * `rm_files` and `rm_file_attachments`. Every change moves the file row's revision first and
 * touches the attachments only when that row moved, so applying an event twice changes nothing.
 */
export const filesProjection: Projection = {
  name: 'files',
  tables: ['rm_files', 'rm_file_attachments'],
  handles: fileEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<FileEvent> & FileEvent;
    const { tenant, revision } = stored;
    const uuid = fileUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    const moved = `update rm_files set revision = $3, updated_at = $4, updated_by = $5 where tenant = $1 and file_uuid = $2 and revision < $3 returning 1`;
    switch (event.type) {
      case 'FileUploaded': {
        const d = event.data;
        await tx.query(
          `insert into rm_files (tenant, file_uuid, storage_key, name, content_type, size, sha256, visibility, page_uuid, idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, (select count(*) from rm_files where tenant = $1), $10, $10, $11, $11, $12)
           on conflict do nothing`,
          [tenant, uuid, d.key, d.name, d.contentType, d.size, d.sha256, d.visibility, d.pageUuid, at, by, revision],
        );
        return;
      }
      case 'FileAttached':
        await tx.query(
          `with moved as (${moved})
           insert into rm_file_attachments (tenant, file_uuid, record_uuid, property, attached_at)
           select $1, $2, $6, $7, $4 from moved on conflict do nothing`,
          [tenant, uuid, revision, at, by, event.data.recordUuid, event.data.property],
        );
        return;
      case 'FileDetached':
        await tx.query(
          `with moved as (${moved})
           delete from rm_file_attachments where tenant = $1 and file_uuid = $2 and record_uuid = $6 and property = $7 and exists (select 1 from moved)`,
          [tenant, uuid, revision, at, by, event.data.recordUuid, event.data.property],
        );
        return;
      case 'FileDeleted':
        await tx.query(`update rm_files set revision = $3, updated_at = $4, deleted_at = $4, deleted_by = $5 where tenant = $1 and file_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by]);
        return;
      case 'FileRestored':
        await tx.query(`update rm_files set revision = $3, updated_at = $4, updated_by = $5, deleted_at = null, deleted_by = null where tenant = $1 and file_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by]);
        return;
      case 'FilePurged':
        await tx.query(`update rm_files set revision = $3, updated_at = $4, updated_by = $5, purged_at = $4 where tenant = $1 and file_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by]);
        return;
    }
  },
};
