import { describe, expect, it } from 'vitest';
import { eventLog } from '../../read-models/event-log.queries.js';
import { anEvent } from '../support/builders.js';
import { useTestStore } from '../support/test-db.js';

// A correlation is found through two indexes (migration 0007): the requestId one where the
// correlationId equals the requestId, a partial one where it differs. Both kinds must be found.
const t = useTestStore();

const ev = (tenant: string, requestId: string, correlationId: string) => anEvent('Happened', { n: 1 }, { tenant, requestId, correlationId });

describe('the event log by correlationId', () => {
  it('finds the events of the request itself and those done because of it, in its own company only', async () => {
    await t.store.append('t1', 's-1', [ev('t1', 'req-a', 'req-a')], { expectedStreamRevision: 'any' });
    await t.store.append('t1', 's-2', [ev('t1', 'req-b', 'req-a'), ev('t1', 'req-b', 'req-a')], { expectedStreamRevision: 'any' });
    await t.store.append('t1', 's-3', [ev('t1', 'req-c', 'req-c')], { expectedStreamRevision: 'any' });
    await t.store.append('t1', 's-4', [ev('t1', 'req-a', 'other')], { expectedStreamRevision: 'any' });
    await t.store.append('t2', 's-1', [ev('t2', 'req-a', 'req-a'), ev('t2', 'req-d', 'req-a')], { expectedStreamRevision: 'any' });

    const q = { limit: 50, offset: 0, direction: 'asc' as const };
    const byCorrelation = await eventLog(t.db, { ...q, tenants: ['t1'], correlationId: ['req-a'] });
    expect(byCorrelation.total).toBe(3);
    expect(byCorrelation.rows.map((r) => [r.stream_id, r.metadata.requestId])).toEqual([
      ['s-1', 'req-a'],
      ['s-2', 'req-b'],
      ['s-2', 'req-b'],
    ]);

    const two = await eventLog(t.db, { ...q, tenants: ['t1'], correlationId: ['req-c', 'other'] });
    expect(two.rows.map((r) => r.stream_id).sort()).toEqual(['s-3', 's-4']);

    const everywhere = await eventLog(t.db, { ...q, tenants: null, correlationId: ['req-a'] });
    expect(everywhere.total).toBe(5);

    const byRequest = await eventLog(t.db, { ...q, tenants: ['t1'], requestId: ['req-a'] });
    expect(byRequest.rows.map((r) => r.stream_id)).toEqual(['s-1', 's-4']);
  });
});
