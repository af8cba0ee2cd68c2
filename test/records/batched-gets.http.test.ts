import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordViewsBatch } from '../../read-models/record-views.queries.js';
import { recordSchema } from '../../src/records/record-view.js';
import { twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aProperty } from '../schema/schema-fixtures.js';
import { aRecord, anObjectWith, call, type TestObject } from './records-fixtures.js';

// Gets that arrive together are read by one statement (src/records/view-loader.ts); each record
// is found by its own tenant and uuid, and its definitions come from the object cache.
let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let objA: TestObject;
let objB: TestObject;
const recordsA: string[] = [];
const recordsB: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ SCHEMA_CACHE_MS: '60000' });
  [a, b] = await twoTenants(t.app);
  // The same object name in both companies: only the tenant tells their records apart.
  objA = await anObjectWith(t.app, a, { title: { type: 'string', format: 'text' } }, 'widget');
  objB = await anObjectWith(t.app, b, { title: { type: 'string', format: 'text' } }, 'widget');
  for (let i = 0; i < 12; i++) {
    recordsA.push((await aRecord(t.app, a, objA.name, { title: `a-${i}` })).uuid);
    recordsB.push((await aRecord(t.app, b, objB.name, { title: `b-${i}` })).uuid);
  }
});
afterAll(async () => t.close());

describe('gets that arrive together', () => {
  it('answer each caller with its own record, and 404 for another company’s, in any mix', async () => {
    const asks = [
      ...recordsA.map((uuid, i) => ({ who: a, uuid, want: `a-${i}` })),
      ...recordsB.map((uuid, i) => ({ who: b, uuid, want: `b-${i}` })),
      ...recordsB.map((uuid) => ({ who: a, uuid, want: null })),
      ...recordsA.map((uuid) => ({ who: b, uuid, want: null })),
    ];
    const answers = await Promise.all(asks.map((q) => call(t.app, q.who, 'GET', `/api/v2/widget/${q.uuid}`)));
    answers.forEach((res, i) => {
      const want = asks[i]!.want;
      if (want === null) expect(res.status).toBe(404);
      else {
        expect(res.status).toBe(200);
        expect(res.body.data.uuid).toBe(asks[i]!.uuid);
        expect(res.body.data.properties).toEqual({ title: want });
        // Written as built (no schema pass on the way out): exactly what the schema documents.
        expect(recordSchema.parse(res.body.data)).toEqual(res.body.data);
      }
    });
  });

  it('are written as built, in every format: exactly what the record schema documents', async () => {
    const urls = ['', '?recordReturnFormat=LEGACY', '?recordReturnFormat=EXPANDED', '?parse=structured', '?parse=human_readable', '?fields=title'];
    for (const q of urls) {
      const res = await call(t.app, a, 'GET', `/api/v2/widget/${recordsA[1]}${q}`);
      expect(res.status).toBe(200);
      expect(recordSchema.parse(res.body.data)).toEqual(res.body.data);
    }
    const page = await call(t.app, a, 'POST', '/api/v2/widget/index', { filters: [{ key: 'title', operator: 'startsWith', value: 'a-' }], limit: 5 });
    expect(page.body.data).toHaveLength(5);
    for (const r of page.body.data) expect(recordSchema.parse(r)).toEqual(r);
  });

  it('read by one statement: a key of another tenant finds nothing, the order of the keys is kept', async () => {
    const keys = [
      { tenant: a.companyUuid, uuid: recordsA[3]! },
      { tenant: a.companyUuid, uuid: recordsB[3]! },
      { tenant: b.companyUuid, uuid: recordsB[3]! },
      { tenant: b.companyUuid, uuid: recordsA[0]!.toUpperCase() },
      { tenant: a.companyUuid, uuid: recordsA[0]!.toUpperCase() },
    ];
    const rows = await recordViewsBatch(t.platform.db, keys, { links: true });
    expect(rows.map((r) => r?.vals ?? null)).toEqual([{ title: 'a-3' }, null, { title: 'b-3' }, null, { title: 'a-0' }]);
  });

  it('writes that arrive together read their own company’s record: another company’s is 404 and stays unchanged', async () => {
    const writes = [
      ...recordsA.slice(0, 6).map((uuid, i) => ({ who: a, uuid, title: `a-new-${i}`, want: 200 })),
      ...recordsB.slice(0, 6).map((uuid) => ({ who: a, uuid, title: 'hijacked', want: 404 })),
      ...recordsB.slice(6).map((uuid, i) => ({ who: b, uuid, title: `b-new-${i}`, want: 200 })),
    ];
    const answers = await Promise.all(writes.map((w) => call(t.app, w.who, 'PUT', `/api/v2/widget/${w.uuid}`, { properties: { title: w.title } })));
    expect(answers.map((r) => r.status)).toEqual(writes.map((w) => w.want));
    const titlesB = await Promise.all(recordsB.map(async (uuid) => (await call(t.app, b, 'GET', `/api/v2/widget/${uuid}`)).body.data.properties.title));
    expect(titlesB).toEqual([...recordsB.slice(0, 6).map((_, i) => `b-${i}`), ...recordsB.slice(6).map((_, i) => `b-new-${i}`)]);
    const titleA = (await call(t.app, a, 'GET', `/api/v2/widget/${recordsA[5]}`)).body.data.properties.title;
    expect(titleA).toBe('a-new-5');
  });

  it('show a property added a moment before in this process, even with a long cache lifetime', async () => {
    await call(t.app, a, 'GET', `/api/v2/widget/${recordsA[0]}`);
    await aProperty(t.app, a, objA.uuid, { name: 'colour', label: 'Colour', type: 'string', format: 'text' });
    const res = await call(t.app, a, 'GET', `/api/v2/widget/${recordsA[0]}`);
    expect(res.body.data.properties).toEqual({ title: 'a-new-0', colour: null });
  });
});
