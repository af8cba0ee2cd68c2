import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { DomainError, invalid, notFound } from '../../aggregates/kernel/errors.js';
import { fileDecider, type FileCommand } from '../../aggregates/file/file.decider.js';
import { fileStream, type FileStored } from '../../aggregates/file/file.events.js';
import { fileByUuid, filesOfRecord, listFiles, type FileRow } from '../../read-models/files.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { definitionsOf } from '../records/record-definitions.js';
import type { RecordsService } from '../records/records.service.js';
import { downloadHeaders, sanitiseFileName } from './file-names.js';
import { typeAccepted, UploadInspector } from './inspect-upload.js';
import type { ObjectStorage } from './storage/storage.port.js';

/** Where an upload goes and what it may be. */
export interface UploadPlan {
  maxBytes: number;
  /** Which limit `maxBytes` is: the file's own, or what is left of the request's. */
  scopeOfLimit: 'file' | 'request';
  /** Accepted types (exact or `family/*`); empty: any. */
  accepted: readonly string[];
  visibility: 'private' | 'public';
  pageUuid: string | null;
  /**
   * Whether the hash worker may write the bytes itself (ADR 0017), where the storage can: a raw
   * body's upload only. A multipart part keeps the stream path: with the worker writing, some of
   * its uploads took twice as long (docs/files.md, Session 14), for a cause not yet found.
   */
  writeOnWorker?: boolean;
}

/** A record's `file` property that a file may be attached to. */
export interface FileTarget {
  recordUuid: string;
  property: string;
  /** The property's accepted types: its `options` values (docs/files.md). */
  accepted: string[];
  /** string: one file (attaching replaces it); json: a list of files. */
  type: string;
  current: unknown;
}

/**
 * Copies `src` into `dst` without ever destroying `src`: when `dst` fails, the rest of `src` is
 * read and dropped, so a multipart parser goes on to the next part instead of stopping.
 */
function feed(src: Readable, dst: Writable) {
  src.on('data', (chunk: Buffer) => {
    if (dst.destroyed || dst.writableEnded) return;
    if (!dst.write(chunk)) {
      src.pause();
      const go = () => {
        dst.off('drain', go);
        dst.off('close', go);
        src.resume();
      };
      dst.on('drain', go);
      dst.on('close', go);
    }
  });
  src.once('end', () => dst.destroyed || dst.end());
  src.once('error', (err) => dst.destroy(err));
}

const fileTypeRefused = (type: string, accepted: readonly string[], property: string) =>
  new DomainError('VALIDATION_FAILED', `Files of type ${type} are not accepted by ${property}`, [
    { field: 'file', message: `The file's content is ${type}; ${property} accepts ${accepted.join(', ')}`, type: 'INVALID_FILE_TYPE', correctionSuggestion: `Send a file of type ${accepted.join(' or ')} (the type is read from the bytes, not the name)` },
  ]);

/** Files of the selected company: bytes in object storage, life in the file- streams. */
export function makeFilesService(deps: { db: Db; store: EventStore; storage: ObjectStorage; records: RecordsService }) {
  const { db, store, storage, records } = deps;

  const run = (fileUuid: string, command: FileCommand, ctx: CommandContext) => handleCommand({ store, decider: fileDecider, streamId: fileStream(fileUuid), command, context: ctx });

  async function found(tenant: string, fileUuid: string, o: { deleted?: boolean | 'either' } = {}): Promise<FileRow> {
    const row = await fileByUuid(db, tenant, fileUuid);
    const want = o.deleted ?? false;
    if (!row || (want !== 'either' && (row.deleted_at !== null) !== want)) throw notFound('File', fileUuid);
    return row;
  }

  async function target(tenant: string, recordUuid: string, property: string): Promise<FileTarget> {
    const { row, objects } = await records.existing(tenant, recordUuid);
    if (row.deleted_at !== null) throw notFound('Record', recordUuid);
    const def = definitionsOf(objects).find((d) => d.name === property);
    if (!def || def.format !== 'file') {
      throw invalid('property', `${property} is not a file property of record ${recordUuid}`, 'Name a property of format file of the record\'s object', 'INVALID_VALUE');
    }
    return { recordUuid, property, accepted: (def.options ?? []).map((o) => o.value), type: def.type, current: row.vals[property] ?? null };
  }

  return {
    found,
    target,

    /** The key a file's bytes live under: the tenant's files, or a webpage's attachments folder. */
    keyOf(tenant: string, fileUuid: string, pageUuid: string | null, publicFolder = false) {
      const t = tenant.toLowerCase();
      if (pageUuid) return `webpages/${t}/${pageUuid.toLowerCase()}/attachments/${fileUuid}`;
      return publicFolder ? `webpages/${t}/attachments/${fileUuid}` : `files/${t}/${fileUuid}`;
    },

    /**
     * Streams an upload into storage and returns what the event will say; no event yet. On any
     * failure (limit, type, client gone) the storage keeps nothing and this rejects.
     */
    async store(tenant: string, src: Readable, rawName: string | undefined, plan: UploadPlan, publicFolder = false): Promise<FileStored> {
      const fileUuid = randomUUID();
      const key = this.keyOf(tenant, fileUuid, plan.pageUuid, publicFolder);
      const inspector = new UploadInspector({ maxBytes: plan.maxBytes, scopeOfLimit: plan.scopeOfLimit, accepted: plan.accepted, canWriteFile: plan.writeOnWorker === true && storage.putWritten !== undefined });
      // The inspector may refuse before the store has attached to it: keep its error here, so it
      // is never an uncaught one, and make sure the store kept nothing.
      let refused: Error | null = null;
      inspector.on('error', (err) => void (refused ??= err));
      try {
        // Local disk, a hash worker free: it hashes and writes each MiB the main thread copies to it (ADR 0017).
        if (storage.putWritten && inspector.writesFile) {
          await storage.putWritten(key, (fd) => {
            const written = inspector.writeInto(fd);
            feed(src, inspector);
            return written;
          });
        } else {
          feed(src, inspector);
          await storage.put(key, inspector, 'application/octet-stream');
        }
      } catch (err) {
        inspector.abandon();
        throw refused ?? err;
      }
      let sha256: string;
      try {
        if (refused) throw refused;
        sha256 = await inspector.digest();
      } catch (err) {
        inspector.abandon();
        await storage.delete(key);
        throw err;
      }
      return { fileUuid, key, name: sanitiseFileName(rawName), contentType: inspector.contentType ?? 'application/octet-stream', size: inspector.size, sha256, visibility: plan.visibility, pageUuid: plan.pageUuid };
    },

    /** Records a stored upload (FileUploaded); when the append fails the bytes are removed. */
    async commit(ctx: CommandContext, file: FileStored): Promise<FileRow> {
      try {
        await run(file.fileUuid, { type: 'UploadFile', file }, ctx);
      } catch (err) {
        await storage.delete(file.key).catch(() => undefined);
        throw err;
      }
      return found(ctx.tenant, file.fileUuid);
    },

    /** Removes stored bytes that will get no event (a request that failed after storing them). */
    discard: (file: FileStored) => storage.delete(file.key).catch(() => undefined),

    list: (tenant: string, o: { deleted: boolean; limit: number; offset: number }) => listFiles(db, tenant, o),

    async ofRecord(tenant: string, recordUuid: string, o: { limit: number; offset: number }) {
      await records.existing(tenant, recordUuid);
      return filesOfRecord(db, tenant, recordUuid, o);
    },

    /** A signed download URL of a live file of the tenant; another company's file is a 404 and gets none. */
    async url(tenant: string, fileUuid: string, ttlSeconds: number, now: number) {
      const row = await found(tenant, fileUuid);
      const url = await storage.signedGetUrl(row.storage_key, downloadHeaders(row.name, row.content_type), { ttlSeconds, now });
      return { url, expiresAt: (Math.floor(now / 1000) + ttlSeconds) * 1000 };
    },

    /** The bytes of a public file (webpage attachments), for the public route. */
    async publicBytes(tenant: string, fileUuid: string) {
      const row = await fileByUuid(db, tenant, fileUuid);
      if (!row || row.visibility !== 'public' || row.deleted_at !== null) return null;
      const body = await storage.get(row.storage_key);
      return body ? { row, body } : null;
    },

    /**
     * Attaches a live file to a record's file property: the record's value changes through the
     * records' command path (a RecordUpdated in its history), then the file says FileAttached.
     * On a one-file property the file it replaces is detached.
     */
    async attach(ctx: CommandContext, fileUuid: string, to: FileTarget): Promise<FileRow> {
      const file = await found(ctx.tenant, fileUuid);
      if (!typeAccepted(file.content_type, to.accepted)) throw fileTypeRefused(file.content_type, to.accepted, to.property);
      const list = Array.isArray(to.current) ? (to.current as string[]) : [];
      const value = to.type === 'json' ? [...new Set([...list, fileUuid])] : fileUuid;
      const replaced = to.type !== 'json' && typeof to.current === 'string' && to.current !== fileUuid ? to.current : null;
      await records.update(ctx, to.recordUuid, { [to.property]: value });
      await run(fileUuid, { type: 'AttachFile', to: { recordUuid: to.recordUuid, property: to.property } }, ctx);
      if (replaced) {
        await run(replaced, { type: 'DetachFile', from: { recordUuid: to.recordUuid, property: to.property } }, ctx).catch((err) => {
          if (!(err instanceof DomainError && err.code === 'NOT_FOUND')) throw err;
        });
      }
      return found(ctx.tenant, fileUuid);
    },

    /** Takes a file (live or deleted) out of a record's file property; 404 when it is not there. */
    async detach(ctx: CommandContext, fileUuid: string, from: FileTarget): Promise<void> {
      await found(ctx.tenant, fileUuid, { deleted: 'either' });
      const list = Array.isArray(from.current) ? (from.current as string[]) : [];
      const holds = from.type === 'json' ? list.includes(fileUuid) : from.current === fileUuid;
      const attached = await run(fileUuid, { type: 'DetachFile', from: { recordUuid: from.recordUuid, property: from.property } }, ctx);
      if (!holds && attached.events.length === 0) {
        throw new DomainError('NOT_FOUND', `File ${fileUuid} is not attached there`, [
          { message: `Record ${from.recordUuid} does not hold file ${fileUuid} in ${from.property}`, type: 'NOT_FOUND', correctionSuggestion: 'List the record\'s files with POST /api/v2/files/records/{recordUuid}/index' },
        ]);
      }
      if (holds) await records.update(ctx, from.recordUuid, { [from.property]: from.type === 'json' ? list.filter((u) => u !== fileUuid) : null });
    },

    async remove(ctx: CommandContext, fileUuid: string) {
      await found(ctx.tenant, fileUuid);
      await run(fileUuid, { type: 'DeleteFile' }, ctx);
    },

    async restore(ctx: CommandContext, fileUuid: string): Promise<FileRow> {
      await found(ctx.tenant, fileUuid, { deleted: true });
      await run(fileUuid, { type: 'RestoreFile' }, ctx);
      return found(ctx.tenant, fileUuid);
    },

    /** Purges a deleted file: FilePurged first, then the bytes (a failed delete leaves bytes no one can reach, never an event without bytes). */
    async purge(ctx: CommandContext, fileUuid: string) {
      const row = await found(ctx.tenant, fileUuid, { deleted: 'either' });
      await run(fileUuid, { type: 'PurgeFile' }, ctx);
      // A sandbox's copied row names its company's bytes (docs/sandboxes.md): only a tenant's own are its to delete.
      if (row.storage_key.includes(`/${ctx.tenant.toLowerCase()}/`)) await storage.delete(row.storage_key);
    },
  };
}
export type FilesService = ReturnType<typeof makeFilesService>;
