import { fileStream, type FileEvent } from '../../../aggregates/file/file.events.js';
import type { StoredEvent } from '../../../aggregates/kernel/events.js';
import { fileByUuid, type FileRow } from '../../../read-models/files.queries.js';
import { companyActor } from '../../auth/actor.js';
import type { Db } from '../../db/db.js';
import { toFile } from '../../files/files.schemas.js';
import type { ResourceHistoryAdapter } from '../resource-history.js';
import { auditFold } from './audit-fold.js';

/**
 * Files' metadata: `rm_files` as projections/files.projection.ts writes it (attaching and
 * detaching move the file's revision and updatedAt). A purged file is gone: its GET and history
 * are 404s, as they are for any file the company does not have.
 */
export const filesHistory = (db: Db): ResourceHistoryAdapter<FileRow> => ({
  kind: 'File',
  historyPath: '/api/v2/files/{uuid}/history',
  stream: fileStream,
  async find(request, uuid) {
    const tenant = companyActor(request).tenant;
    const row = await fileByUuid(db, tenant, uuid);
    return row && { tenant, row };
  },
  evolve(row, stored: StoredEvent, current) {
    const event = stored as unknown as FileEvent;
    switch (event.type) {
      case 'FileUploaded': {
        const d = event.data;
        return {
          tenant: current.tenant, file_uuid: current.file_uuid, idx: current.idx, storage_key: d.key, name: d.name, content_type: d.contentType, size: d.size, sha256: d.sha256,
          visibility: d.visibility, page_uuid: d.pageUuid ?? null, purged_at: null, ...auditFold.created(stored),
        };
      }
      case 'FileDeleted':
        return row && { ...row, ...auditFold.deleted(stored) };
      case 'FileRestored':
        return row && { ...row, ...auditFold.restored(stored) };
      case 'FilePurged':
        return row && { ...row, purged_at: stored.metadata.occurredAt, ...auditFold.updated(stored) };
      default:
        return row && { ...row, ...auditFold.updated(stored) };
    }
  },
  render: toFile,
});
