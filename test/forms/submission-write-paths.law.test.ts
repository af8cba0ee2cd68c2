import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formSubmissionDecider } from '../../aggregates/form/form-submission.decider.js';
import { formSubmissionStream } from '../../aggregates/form/form.events.js';
import { recordLinkDecider } from '../../aggregates/relation/record-link.decider.js';
import { recordLinkStream } from '../../aggregates/relation/record-link.events.js';
import { projections } from '../../projections/index.js';
import { handleCreations, newStreamWrite, type CommandContext, type NewStreamWrite } from '../../src/commands/command-handler.js';
import type { Db } from '../../src/db/db.js';
import type { EventStore } from '../../src/event-store/port.js';
import { createPostgresEventStore } from '../../src/event-store/postgres.store.js';
import { makeRecordsService } from '../../src/records/records.service.js';
import { makeObjectsService } from '../../src/schema/objects.service.js';
import { makePropertiesService } from '../../src/schema/properties.service.js';
import { makeRelationsService } from '../../src/schema/relations.service.js';
import { onPostgres, openTestDb } from '../support/test-db.js';

/**
 * The law of a submission's two write paths (docs/adr/0004, addendum): the same submissions
 * (records, connection, FormSubmissionEvent) written by the store's multi-stream append statement
 * (the fused writes, PostgreSQL) and by the transaction path (the same projections without
 * `withAppend`) leave the same rows, each in a tenant of its own; and a refused part leaves
 * nothing on either path.
 */
let db: Db;
let fused: EventStore;
let plain: EventStore;
const statements: string[] = [];
const [fusedTenant, plainTenant] = ['00000000-0000-4000-8000-00000000f001', '00000000-0000-4000-8000-00000000f002'];
const now = 1_700_000_000_000;
const ctx = (tenant: string): CommandContext => ({ tenant, userUuid: null, requestId: 'law', now });
const id = (n: number, part: number) => `00000000-0000-4000-8000-${String(n * 10 + part).padStart(12, '0')}`;
let relationUuid = '';
/** Submission n's writes: lead n, contact n (or `contact`, whose record then exists: left out), their connection; `email` for lead n's. */
let writesOf: (n: number, o?: { contact?: number; submission?: number; email?: string }) => Promise<NewStreamWrite[]>;

beforeAll(async () => {
  db = await openTestDb();
  // The fused path's store sees its statements (which ones were one statement).
  const watched: Db = { ...db, query: (text, params, name) => (statements.push(name ?? ''), db.query(text, params, name)) };
  fused = await createPostgresEventStore({ db: watched, projections });
  plain = await createPostgresEventStore({ db, projections: projections.map((p) => ({ ...p, withAppend: undefined })) });
  const objects = makeObjectsService({ db, store: plain });
  const properties = makePropertiesService({ db, store: plain });
  const lead = await objects.create(ctx(fusedTenant), { name: 'lead', label: 'Lead' });
  const contact = await objects.create(ctx(fusedTenant), { name: 'contact', label: 'Contact' });
  await properties.create(ctx(fusedTenant), lead.object_uuid, { name: 'name', label: 'Name', type: 'string', format: 'text' });
  await properties.create(ctx(fusedTenant), lead.object_uuid, { name: 'email', label: 'E-mail', type: 'string', format: 'email', unique: true });
  await properties.create(ctx(fusedTenant), lead.object_uuid, { name: 'score', label: 'Score', type: 'number', format: 'number' });
  await properties.create(ctx(fusedTenant), contact.object_uuid, { name: 'fullname', label: 'Full name', type: 'string', format: 'text' });
  const relation = await makeRelationsService({ db, store: plain }).upsert(ctx(fusedTenant), lead.object_uuid, { name: 'contacts', toObjectUuid: contact.object_uuid, cardinality: 'ONE_TO_MANY' });
  relationUuid = relation.relation.relation_uuid;
  // The other tenant gets the same schema rows (same uuids), so that the rows compare one to one.
  for (const table of ['rm_objects', 'rm_properties', 'rm_relations']) {
    await db.query(`insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t) || jsonb_build_object('tenant', $2::text))).* from ${table} t where t.tenant = $1`, [fusedTenant, plainTenant]);
  }
  const records = makeRecordsService({ db, store: plain });
  writesOf = async (n, o = {}) => {
    const [contactN, submissionN] = [o.contact ?? n, o.submission ?? n];
    const main = await records.creation(fusedTenant, 'lead', { uuid: id(n, 1), properties: { name: `Lead ${n}`, email: o.email ?? `l${n}@x.test`, score: n } });
    const inner = await records.creation(fusedTenant, 'contact', { uuid: id(contactN, 2), properties: { fullname: `Contact ${contactN}` } });
    const related = [{ itemId: 'contacts', recordUuid: inner.uuid, objectName: 'contact', relationUuid }];
    return [
      newStreamWrite(formSubmissionDecider, formSubmissionStream(id(submissionN, 3)), {
        type: 'SubmitForm', submissionUuid: id(submissionN, 3), formUuid: id(0, 4), formRevision: 2, objectName: 'lead', recordUuid: main.uuid, related,
        recordUuids: [main.uuid, inner.uuid], score: n, visitor: { address: '192.0.2.0', userAgent: 'law' },
      }),
      main.write,
      ...(contactN === n ? [inner.write] : []),
      newStreamWrite(recordLinkDecider, recordLinkStream(relationUuid, main.uuid, inner.uuid), {
        type: 'ConnectRecords', relationUuid, fromRecordUuid: main.uuid, toRecordUuid: inner.uuid, edgeProperties: {}, edgeDefinitions: [],
      }),
    ];
  };
});
afterAll(async () => {
  await fused.close();
  await plain.close();
  await db.close();
});

/** A submission's rows of one tenant, without it. */
const rowsOf = async (tenant: string) => ({
  records: await db.query(
    `select object_uuid, uuid, is_primary, object_name, vals, search::text as search, created_at, updated_at, revision from records where tenant = $1 order by uuid`,
    [tenant],
  ),
  values: await db.query(
    'select r.uuid, f.name, v.t, v.tf, v.n from record_values v join records r on r.rid = v.rid join record_fields f on f.fid = v.fid where r.tenant = $1 order by 1, 2',
    [tenant],
  ),
  counts: await db.query('select object_uuid, sum(live)::int8 as live from record_counts where tenant = $1 group by 1 order by 1', [tenant]),
  unique: await db.query('select object_uuid, name, value, record_uuid from record_unique where tenant = $1 order by value', [tenant]),
  links: await db.query(
    'select relation_uuid, from_record, to_record, edge_properties, one_per_from, one_per_to, connected, created_at, updated_at, revision from rm_record_links where tenant = $1 order by from_record',
    [tenant],
  ),
  submissions: await db.query(
    'select submission_uuid, form_uuid, form_revision, record_uuid, record_uuids, related, score, visitor, created_at from rm_form_submissions where tenant = $1 order by submission_uuid',
    [tenant],
  ),
  // The submissions' streams (the schema's are in the first tenant only).
  streams: await db.query(`select stream_id, revision from streams where tenant = $1 and stream_id ~ '^(record|link|form-submission)-' order by stream_id`, [tenant]),
});

const submit = async (store: EventStore, tenant: string, n: number, o?: Parameters<typeof writesOf>[1]) => handleCreations({ store, context: ctx(tenant), writes: await writesOf(n, o) });

describe(`a submission's write paths (${onPostgres ? 'one fused statement' : 'PGlite: both in a transaction'} beside the transaction path)`, () => {
  it('leave the same rows, alone and in a group commit', async () => {
    statements.length = 0;
    await submit(fused, fusedTenant, 1);
    await Promise.all([2, 3, 4].map((n) => submit(fused, fusedTenant, n)));
    if (onPostgres) expect(statements.filter((s) => s.startsWith('append_together_')).length).toBeGreaterThanOrEqual(2);
    await submit(plain, plainTenant, 1);
    for (const n of [2, 3, 4]) await submit(plain, plainTenant, n);
    const [a, b] = [await rowsOf(fusedTenant), await rowsOf(plainTenant)];
    expect(a.records).toHaveLength(8);
    expect(a.links).toHaveLength(4);
    expect(a.submissions).toHaveLength(4);
    expect(a).toEqual(b);
  });

  it('a taken stream, a taken unique value or a broken cardinality leaves nothing of the submission on either path', async () => {
    for (const [store, tenant] of [[fused, fusedTenant], [plain, plainTenant]] as const) {
      const before = await rowsOf(tenant);
      // Submission 1's stream (its uuid) is taken; lead 1's e-mail is taken; contact 2 has its lead (ONE_TO_MANY).
      await expect(submit(store, tenant, 5, { submission: 1 })).rejects.toMatchObject({ code: 'WRONG_EXPECTED_REVISION' });
      await expect(submit(store, tenant, 5, { email: 'L1@x.test' })).rejects.toMatchObject({ code: '23505', constraint: 'record_unique_pkey' });
      await expect(submit(store, tenant, 5, { contact: 2 })).rejects.toMatchObject({ code: '23505', constraint: 'rm_record_links_one_per_to' });
      expect(await rowsOf(tenant)).toEqual(before);
      // In a group commit beside a good submission: the refused one leaves nothing, the good one lands whole.
      const results = await Promise.allSettled([submit(store, tenant, 6, { contact: 3 }), submit(store, tenant, 7)]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
      const after = await rowsOf(tenant);
      expect(after.streams.length - before.streams.length).toBe(4);
      expect(after.records.map((r) => r.uuid)).toEqual(expect.arrayContaining([id(7, 1), id(7, 2)]));
      expect(after.records.map((r) => r.uuid)).not.toContain(id(6, 1));
    }
  });
});
