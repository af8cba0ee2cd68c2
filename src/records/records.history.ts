import { z } from 'zod';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { recordDecider } from '../../aggregates/record/record.decider.js';
import { recordStream, type RecordEvent } from '../../aggregates/record/record.events.js';
import { recordView } from '../../read-models/record-views.queries.js';
import { getRecord } from '../../read-models/records.queries.js';
import { appLabels } from '../../read-models/apps.queries.js';
import { actorRefSchema, auditActors } from '../http/audit-fields.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { toRecordView, type RecordView, type ViewOptions } from './record-view.js';
import type { AsOf } from './records.schemas.js';
import { pageOffset } from '../../aggregates/kernel/paging.js';

const change = z.object({ before: z.unknown(), after: z.unknown() });

/** One event of a record's history. */
export const historyEntrySchema = z
  .object({
    revision: z.number().int(),
    type: z.string(),
    occurredAt: z.number().int(),
    user: actorRefSchema.describe('Who did it: the same shape as createdBy / updatedBy / deletedBy'),
    app: z.object({ uuid: z.string(), label: z.string() }).nullable().describe("The app whose function made the change (for the user above), or null"),
    requestId: z.string(),
    correlationId: z.string(),
    causationId: z.string().nullable(),
    changes: z.record(z.string(), change).describe('For each changed property: its value before and after (null: no value)'),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'RecordHistoryEntry' });
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

function changesOf(e: StoredEvent): Record<string, { before: unknown; after: unknown }> {
  const event = e as unknown as RecordEvent;
  if (event.type === 'RecordCreated') return Object.fromEntries(Object.entries(event.data.properties).map(([k, v]) => [k, { before: null, after: v }]));
  if (event.type === 'RecordUpdated') return event.data.changes;
  return {};
}

const notThen = (uuid: string) =>
  new DomainError('NOT_FOUND', `Record ${uuid} did not exist then`, [
    { message: `Record ${uuid} has no revision at or before the requested asOf`, type: 'NOT_FOUND', correctionSuggestion: 'Ask for a later revision or time (see GET /api/v2/records/{uuid}/history)' },
  ]);

/** History and time travel, read from the record's stream. */
export function makeRecordHistory(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  return {
    /** The record's events, newest first, `limit` per page. */
    async page(tenant: string, uuid: string, pageNumber: number, limit: number): Promise<{ total: number; entries: HistoryEntry[] }> {
      const row = await getRecord(db, tenant, uuid);
      if (!row) throw notFound('Record', uuid);
      const total = row.revision + 1;
      const from = row.revision - pageOffset(pageNumber, limit);
      const events = from < 0 ? [] : await store.readStream(tenant, recordStream(uuid), { direction: 'backwards', fromRevision: from, maxCount: limit });
      const actors = await auditActors(db, tenant, events.map((e) => e.metadata.userUuid));
      const apps = await appLabels(db, events.map((e) => e.metadata.app?.appUuid));
      const entries = events.map((e) => {
        return {
          revision: e.revision,
          type: e.type,
          occurredAt: e.metadata.occurredAt,
          user: actors.actor(e.metadata.userUuid),
          app: e.metadata.app ? { uuid: e.metadata.app.appUuid, label: apps.get(e.metadata.app.appUuid) ?? '' } : null,
          requestId: e.metadata.requestId,
          correlationId: e.metadata.correlationId,
          causationId: e.metadata.causationId,
          changes: changesOf(e),
          data: e.data as Record<string, unknown>,
        };
      });
      return { total, entries };
    },

    /**
     * The record as it was at a revision or a time: its values and archive state then. Relations
     * and teams are shown as they are now (they live in other streams).
     */
    async asOf(tenant: string, uuid: string, objectName: string | undefined, at: AsOf, opts: ViewOptions): Promise<RecordView> {
      const row = await recordView(db, tenant, uuid);
      if (!row || (objectName !== undefined && !row.object_names.some((o) => o.name === objectName))) throw notFound('Record', uuid);
      const all = await store.readStream(tenant, recordStream(uuid), 'revision' in at ? { maxCount: at.revision + 1 } : {});
      const events = 'revision' in at ? all.filter((e) => e.revision <= at.revision) : all.filter((e) => e.metadata.occurredAt <= at.time);
      if (events.length === 0) throw notThen(uuid);
      let state = recordDecider.initialState();
      let deletedAt: number | null = null;
      let deletedBy: string | null = null;
      for (const e of events) {
        state = recordDecider.evolve(state, e as unknown as RecordEvent);
        if (e.type === 'RecordArchived') [deletedAt, deletedBy] = [e.metadata.occurredAt, e.metadata.userUuid];
        if (e.type === 'RecordRestored') [deletedAt, deletedBy] = [null, null];
      }
      const first = events[0]!;
      const last = events[events.length - 1]!;
      const actors = await auditActors(db, tenant, [first.metadata.userUuid, last.metadata.userUuid, deletedBy, state.user]);
      return toRecordView(
        {
          ...row,
          vals: { ...state.properties },
          revision: last.revision,
          created_at: first.metadata.occurredAt,
          created_by: first.metadata.userUuid,
          updated_at: last.metadata.occurredAt,
          updated_by: last.metadata.userUuid,
          deleted_at: deletedAt,
          deleted_by: deletedBy,
          user_uuid: state.user,
        },
        opts,
        actors,
      );
    },
  };
}

export type RecordHistory = ReturnType<typeof makeRecordHistory>;
