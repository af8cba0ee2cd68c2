import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import type { FileAttachment, FileEvent, FileStored } from './file.events.js';

export type FileCommand =
  | { type: 'UploadFile'; file: FileStored }
  | { type: 'AttachFile'; to: FileAttachment }
  | { type: 'DetachFile'; from: FileAttachment }
  | { type: 'DeleteFile' }
  | { type: 'RestoreFile' }
  | { type: 'PurgeFile' };

export interface FileState {
  exists: boolean;
  deleted: boolean;
  purged: boolean;
  fileUuid: string;
  key: string;
  attachments: FileAttachment[];
}

const sameAttachment = (a: FileAttachment, b: FileAttachment) => a.recordUuid === b.recordUuid && a.property === b.property;

const stateNotAllowed = (message: string, correctionSuggestion: string) => new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion }]);

/**
 * A file's life: uploaded, attached to and detached from record properties, soft-deleted and
 * restored (the bytes stay), purged (the bytes go; only from the deleted state and once no record
 * holds it, so no record is left pointing at nothing).
 */
export const fileDecider: Decider<FileState, FileCommand, FileEvent> = {
  initialState: () => ({ exists: false, deleted: false, purged: false, fileUuid: '', key: '', attachments: [] }),
  decide(command, state) {
    if (command.type === 'UploadFile') {
      if (state.exists) throw new DomainError('CONFLICT', 'file already exists', [{ message: 'A file with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Upload again: a new uuid is made' }]);
      return [{ type: 'FileUploaded', version: 1, data: command.file }];
    }
    if (!state.exists || state.purged) throw notFound('File', state.fileUuid || 'requested');
    switch (command.type) {
      case 'AttachFile':
        if (state.deleted) throw notFound('File', state.fileUuid);
        return state.attachments.some((a) => sameAttachment(a, command.to)) ? [] : [{ type: 'FileAttached', version: 1, data: command.to }];
      case 'DetachFile':
        return state.attachments.some((a) => sameAttachment(a, command.from)) ? [{ type: 'FileDetached', version: 1, data: command.from }] : [];
      case 'DeleteFile':
        if (state.deleted) throw notFound('File', state.fileUuid);
        return [{ type: 'FileDeleted', version: 1, data: { fileUuid: state.fileUuid } }];
      case 'RestoreFile':
        if (!state.deleted) throw notFound('File', state.fileUuid);
        return [{ type: 'FileRestored', version: 1, data: { fileUuid: state.fileUuid } }];
      case 'PurgeFile':
        if (!state.deleted) throw stateNotAllowed('Only a deleted file can be purged', `Delete file ${state.fileUuid} first`);
        if (state.attachments.length > 0) {
          throw stateNotAllowed(`The file is still attached to ${state.attachments.length} record propert${state.attachments.length === 1 ? 'y' : 'ies'}`, 'Detach it from every record property first');
        }
        return [{ type: 'FilePurged', version: 1, data: { fileUuid: state.fileUuid, key: state.key } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'FileUploaded':
        return { ...state, exists: true, fileUuid: event.data.fileUuid, key: event.data.key };
      case 'FileAttached':
        return { ...state, attachments: [...state.attachments, event.data] };
      case 'FileDetached':
        return { ...state, attachments: state.attachments.filter((a) => !sameAttachment(a, event.data)) };
      case 'FileDeleted':
        return { ...state, deleted: true };
      case 'FileRestored':
        return { ...state, deleted: false };
      case 'FilePurged':
        return { ...state, purged: true };
    }
  },
};
