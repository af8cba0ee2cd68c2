import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordIndexRequestSchema } from '../../aggregates/record-filter/filter.schema.js';
import { ok, page } from '../../src/http/envelope.js';
import { recordObjects } from '../../src/records/object-cache.js';
import { recordsViews } from '../../src/records/record-json.js';
import type { ParseMode, ReturnFormat } from '../../src/records/record-view.js';
import { makeRecordReads, type RecordReads } from '../../src/records/records.reads.js';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRelation } from '../schema/schema-fixtures.js';
import { aRecord, anObjectWith, call, data, type TestObject } from './records-fixtures.js';

// The replies of a record's GET and of an object's index are written as JSON text from their rows
// (record-json.ts, ADR 0011). Each is held, byte for byte and header for header, to what the
// routes sent before: JSON.stringify of the envelope around the records' views (`toRecordView`)
// of the same read.
let t: TestApp;
let admin: TestTenant;
let other: TestTenant;
let deals: TestObject;
let leads: TestObject;
let reads: RecordReads;
const uuids: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUpWithCompany(t.app);
  other = await joinCompany(t.app, admin, { role: 'ADMIN' });
  reads = makeRecordReads({ db: t.platform.db, store: t.platform.store });
  deals = await anObjectWith(t.app, admin, { name: {}, body: { format: 'textarea' }, amount: { type: 'number', format: 'number' }, stage: { format: 'select', options: [{ value: 'won', label: 'Won "big"' }] } });
  leads = await anObjectWith(t.app, admin, { name: {}, source: {} });
  const values = [
    { name: 'Quorel "Holdings" \u2028', body: 'quorel renewal\n\ttabbed \\ \u007f 😀', amount: 12.5, stage: 'won' },
    { name: 'Quorel Labs', body: 'a quorel partner', amount: -0, stage: null },
    { name: 'Émile & Søn', body: null, amount: 1e21 },
  ];
  for (const [i, v] of values.entries()) uuids.push((await aRecord(t.app, i === 1 ? other : admin, deals.name, v, i === 2 ? { extends: [leads.name] } : {})).uuid);
  // The other writer updates one: a record whose createdBy and updatedBy differ.
  expect((await call(t.app, other, 'PUT', `/api/v2/${deals.name}/${uuids[0]}`, { properties: { amount: 13 } })).status).toBe(200);
  const relation = await aRelation(t.app, admin, deals.uuid, leads.uuid, { name: 'about', direction: 'BIDIRECTIONAL', toName: 'deal' });
  const lead = await aRecord(t.app, admin, leads.name, { name: 'quorel lead', source: 'web' });
  await data(t.app, admin, 'PUT', `/api/v2/relations/${relation.uuid}/connection/${uuids[0]}/${lead.uuid}`, { edgeProperties: {} });
  const team = await data(t.app, admin, 'POST', '/api/v2/teams', { name: 'Quorel team' });
  await data(t.app, admin, 'PUT', `/api/v2/records/${uuids[1]}/teams/${team.uuid}`);
});
afterAll(async () => t.close());

const formats: ReturnFormat[] = ['USER_FRIENDLY', 'EXPANDED', 'LEGACY'];
const parses: [string, ParseMode][] = [['raw', 'raw'], ['true', 'human_readable'], ['structured', 'structured']];

const send = (method: 'GET' | 'POST', url: string, body?: Record<string, unknown>) => t.app.inject({ method, url, headers: admin.headers, payload: body });

function expectSameReply(res: Awaited<ReturnType<typeof send>>, before: string) {
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.payload).toBe(before);
  expect(JSON.parse(res.payload)).toEqual(JSON.parse(before));
}

describe('record replies written from rows', () => {
  it('GET /{object}/{uuid} and GET /records/{uuid}: the bytes of the views, in every format and parse mode', async () => {
    for (const uuid of uuids) {
      for (const format of formats) {
        for (const [parse, mode] of parses) {
          const fields = parse === 'raw' && format === 'USER_FRIENDLY' ? '&fields=amount,name' : '';
          for (const [url, objectName] of [[`/api/v2/${deals.name}/${uuid}`, deals.name], [`/api/v2/records/${uuid}`, undefined]] as const) {
            const res = await send('GET', `${url}?recordReturnFormat=${format}&parse=${parse}${fields}`);
            const opts = { format, parse: mode, fields: fields ? new Set(['amount', 'name']) : undefined };
            const before = await reads.one(admin.companyUuid, uuid, objectName, opts);
            expectSameReply(res, JSON.stringify(ok(recordsViews(before)[0])));
            expect(res.headers.etag).toBe(`"${before.row.revision}"`);
          }
        }
      }
    }
  });

  it('POST /{object}/index: lists, filtered lists, free text, show and pages are the bytes of the views', async () => {
    const [object] = await recordObjects(t.platform.db, admin.companyUuid, [deals.name]);
    const bodies = [
      {},
      { limit: 2, page: 1 },
      { filters: [{ key: 'name', operator: 'contains', value: 'quorel' }], sort: [{ key: 'amount', direction: 'desc' }] },
      { query: 'quorel' },
      { query: 'quorel', filters: [{ key: 'amount', operator: 'gt', value: 0 }] },
      { show: ['name', 'stage'] },
      { query: 'nothing-matches-this' },
    ];
    for (const body of bodies) {
      for (const format of formats) {
        const res = await send('POST', `/api/v2/${deals.name}/index?recordReturnFormat=${format}`, body);
        const before = await reads.page(admin.companyUuid, object!, recordIndexRequestSchema.parse(body), { format, parse: 'raw' });
        expect(before.rows.length).toBe(res.json().data.length);
        expectSameReply(res, JSON.stringify(page(recordsViews(before), before.total, before.page, before.perPage)));
      }
    }
    // The page's records carry both writers, and each record is what its own GET answers (the
    // page's layouts hold apart from the reads the bytes were compared with above).
    const all = (await call(t.app, admin, 'POST', `/api/v2/${deals.name}/index?recordReturnFormat=EXPANDED`, {})).body.data as { uuid: string; createdBy: { uuid: string }; updatedBy: { uuid: string } }[];
    expect(new Set(all.flatMap((r) => [r.createdBy.uuid, r.updatedBy.uuid]))).toEqual(new Set([admin.userUuid, other.userUuid]));
    for (const record of all) expect(record).toEqual(await data(t.app, admin, 'GET', `/api/v2/${deals.name}/${record.uuid}?recordReturnFormat=EXPANDED`));
  });
});
