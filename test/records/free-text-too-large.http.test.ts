import { describe, expect, it } from 'vitest';
import { useAppWithAdmin } from '../support/test-app.js';
import { aRecord, anObjectWith, index } from './records-fixtures.js';
import { objectStoreSettled, objectStoreStats } from '../../read-models/record-index/index.js';

// An object whose free text the in-process index cannot hold within INDEX_STORE_CELLS (ADR 0016):
// free text is answered by SQL, and the store does not read the object's vectors again for every
// request (at 1,000,000 records each such read took seconds). Its filtered lists are still held.
const ctx = useAppWithAdmin({ INDEX_STORE_CELLS: '400' });

describe('free text on an object too large for the store to hold its text', () => {
  it('is answered by SQL, without reading the object again on each request', async () => {
    const { t, admin } = ctx;
    const deals = await anObjectWith(t.app, admin, { name: {}, body: { format: 'textarea' } });
    for (let i = 0; i < 30; i++) await aRecord(t.app, admin, deals.name, { name: `Deal ${i}`, body: i % 3 === 0 ? 'kalomi renewal' : 'other words' });
    const before = { ...objectStoreStats };
    for (let round = 0; round < 3; round++) {
      const res = await index(t.app, admin, deals.name, { query: 'kalomi', limit: 25 });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(10);
      expect((res.body.data as { properties: { body: string } }[]).every((r) => r.properties.body === 'kalomi renewal')).toBe(true);
    }
    // Declined once (its size known from the counters), then left to SQL without asking again.
    expect(objectStoreStats.declined - before.declined).toBe(1);
    expect(objectStoreStats.read - before.read).toBe(0);
    expect(objectStoreStats.answered - before.answered).toBe(0);
    // A filtered list of the same object is still held and answered by the store.
    const listed = await index(t.app, admin, deals.name, { filters: [{ key: 'name', operator: 'contains', value: 'Deal 1' }] });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(11);
    // The first by SQL, while the store reads the object in the background (ADR 0019); then by the store.
    await objectStoreSettled();
    const again = await index(t.app, admin, deals.name, { filters: [{ key: 'name', operator: 'contains', value: 'Deal 1' }] });
    expect(again.body.total).toBe(11);
    expect(objectStoreStats.answered - before.answered).toBe(1);
  });
});
