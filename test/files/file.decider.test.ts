import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fileDecider, type FileCommand } from '../../aggregates/file/file.decider.js';
import { fileEventSchema, type FileEvent } from '../../aggregates/file/file.events.js';
import { sanitiseFileName } from '../../src/files/file-names.js';
import { sniffType, typeAccepted } from '../../src/files/inspect-upload.js';
import { given } from '../support/decider-spec.js';

const fileUuid = '11111111-1111-4111-8111-111111111111';
const recordUuid = '22222222-2222-4222-8222-222222222222';
const uploaded: FileEvent = {
  type: 'FileUploaded', version: 1,
  data: { fileUuid, key: `files/t/${fileUuid}`, name: 'a.txt', contentType: 'text/plain', size: 1, sha256: 'a'.repeat(64), visibility: 'private', pageUuid: null },
};
const to = { recordUuid, property: 'docs' };
const schema = { schema: fileEventSchema };
const attached: FileEvent = { type: 'FileAttached', version: 1, data: to };
const deleted: FileEvent = { type: 'FileDeleted', version: 1, data: { fileUuid } };
const purged: FileEvent = { type: 'FilePurged', version: 1, data: { fileUuid, key: 'k' } };

describe('file decider', () => {
  it('attaches once, detaches what is attached', () => {
    given(fileDecider, [uploaded], schema).when({ type: 'AttachFile', to }).then([attached]);
    given(fileDecider, [uploaded, attached], schema).when({ type: 'AttachFile', to }).then([]);
    given(fileDecider, [uploaded], schema).when({ type: 'DetachFile', from: to }).then([]);
    given(fileDecider, [uploaded, attached], schema).when({ type: 'DetachFile', from: to }).then([{ type: 'FileDetached', version: 1, data: to }]);
  });

  it('purges only a deleted file that no record holds; a purged file is gone for every command', () => {
    given(fileDecider, [uploaded], schema).when({ type: 'PurgeFile' }).thenFails('STATE_NOT_ALLOWED');
    given(fileDecider, [uploaded, attached, deleted], schema).when({ type: 'PurgeFile' }).thenFails('STATE_NOT_ALLOWED', 'still attached');
    given(fileDecider, [uploaded, deleted], schema).when({ type: 'PurgeFile' }).then([{ type: 'FilePurged', version: 1, data: { fileUuid, key: `files/t/${fileUuid}` } }]);
    for (const c of [{ type: 'RestoreFile' }, { type: 'DeleteFile' }, { type: 'AttachFile', to }] as FileCommand[]) {
      given(fileDecider, [uploaded, deleted, purged], schema).when(c).thenFails('NOT_FOUND', 'not found');
    }
    given(fileDecider, [uploaded, deleted], schema).when({ type: 'AttachFile', to }).thenFails('NOT_FOUND', 'not found');
    given(fileDecider, [uploaded, deleted], schema).when({ type: 'RestoreFile' }).then([{ type: 'FileRestored', version: 1, data: { fileUuid } }]);
  });
});

describe('file names and types', () => {
  it('a sanitised name has no path, no control character, no leading dot, at most 200 characters, never empty', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (raw) => {
        const name = sanitiseFileName(raw);
        expect(name.length).toBeGreaterThan(0);
        expect([...name].length).toBeLessThanOrEqual(200);
        expect(name).not.toMatch(/[\\/\u0000-\u001f"<>]/);
        expect(name.startsWith('.')).toBe(false);
        expect(sanitiseFileName(name)).toBe(name);
      }),
    );
    expect(sanitiseFileName('C:\\Users\\me\\..\\report (final).pdf')).toBe('report (final).pdf');
    expect(sanitiseFileName('../../.htaccess')).toBe('htaccess');
  });

  it('types come from the bytes', async () => {
    expect(await sniffType(Buffer.from('%PDF-1.7\n'))).toBe('application/pdf');
    expect(await sniffType(Buffer.from('  <!DOCTYPE html><p>x'))).toBe('text/html');
    expect(await sniffType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('image/svg+xml');
    expect(await sniffType(Buffer.from('just words'))).toBe('text/plain');
    expect(await sniffType(Buffer.from([0, 1, 2, 3, 255]))).toBe('application/octet-stream');
    expect(typeAccepted('image/png', ['image/*'])).toBe(true);
    expect(typeAccepted('image/svg+xml', ['image/png'])).toBe(false);
    expect(typeAccepted('text/html', [])).toBe(true);
  });
});
