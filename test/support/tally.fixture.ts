import { DomainError } from '../../aggregates/kernel/errors.js';
import type { Decider } from '../../aggregates/kernel/decider.js';
import type { DomainEvent } from '../../aggregates/kernel/events.js';
import type { Projection } from '../../projections/projection.js';

/** A small aggregate and projection for testing the kernel without any real domain. */
export type TallyCommand =
  | { kind: 'open'; name: string }
  | { kind: 'add'; n: number }
  | { kind: 'rename'; name: string }
  | { kind: 'close' };

export type TallyEvent =
  | DomainEvent<'TallyOpened', { name: string }>
  | DomainEvent<'TallyAdded', { n: number }>
  | DomainEvent<'TallyRenamed', { name: string }>
  | DomainEvent<'TallyClosed', Record<string, never>>;

type State = { status: 'none' | 'open' | 'closed'; total: number };

export const tallyDecider: Decider<State, TallyCommand, TallyEvent> = {
  initialState: () => ({ status: 'none', total: 0 }),
  decide(command, state) {
    if (command.kind === 'open') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', 'already open');
      return [{ type: 'TallyOpened', version: 1, data: { name: command.name } }];
    }
    if (state.status !== 'open') throw new DomainError('STATE_NOT_ALLOWED', 'not open');
    if (command.kind === 'add') return [{ type: 'TallyAdded', version: 1, data: { n: command.n } }];
    if (command.kind === 'rename') return [{ type: 'TallyRenamed', version: 1, data: { name: command.name } }];
    return [{ type: 'TallyClosed', version: 1, data: {} }];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'TallyOpened':
        return { status: 'open', total: 0 };
      case 'TallyAdded':
        return { ...state, total: state.total + event.data.n };
      case 'TallyRenamed':
        return state;
      case 'TallyClosed':
        return { ...state, status: 'closed' };
    }
  },
};

export const tallyTableSql = `create table if not exists test_tallies (
  tenant text not null, id text not null, name text not null, total int not null,
  closed boolean not null, revision bigint not null, primary key (tenant, id))`;

// A run of TallyAdded in one statement: per tally, the sum of the events newer than its row.
const addMany = `update test_tallies t
    set total = t.total + coalesce((select sum(u.n) from unnest(d.revs, d.ns) as u(rev, n) where u.rev > t.revision), 0),
        revision = d.last
   from jsonb_to_recordset($1::jsonb) as d(tenant text, id text, revs bigint[], ns int[], last bigint)
  where t.tenant = d.tenant and t.id = d.id and t.revision < d.last`;

export const tallyProjection: Projection = {
  name: 'test-tallies',
  tables: ['test_tallies'],
  handles: ['TallyOpened', 'TallyAdded', 'TallyRenamed', 'TallyClosed'],
  async applyBatch(events, tx) {
    const added = new Map<string, { tenant: string; id: string; revs: number[]; ns: number[]; last: number }>();
    const flush = async () => {
      if (added.size > 0) await tx.query(addMany, [JSON.stringify([...added.values()])], 'tally_add_many');
      added.clear();
    };
    for (const event of events) {
      if (event.type !== 'TallyAdded') {
        await flush();
        await tallyProjection.apply(event, tx);
        continue;
      }
      const key = `${event.tenant}\u0000${event.streamId}`;
      const tally = added.get(key) ?? { tenant: event.tenant, id: event.streamId, revs: [], ns: [], last: -1 };
      tally.revs.push(event.revision);
      tally.ns.push((event.data as { n: number }).n);
      tally.last = Math.max(tally.last, event.revision);
      added.set(key, tally);
    }
    await flush();
  },
  async apply(event, tx) {
    const e = event as unknown as TallyEvent;
    const key = [event.tenant, event.streamId, event.revision];
    if (e.type === 'TallyOpened') {
      await tx.query(
        `insert into test_tallies values ($1, $2, $4, 0, false, $3) on conflict do nothing`,
        [...key, e.data.name],
      );
      return;
    }
    const set =
      e.type === 'TallyAdded' ? 'total = total + $4::int' : e.type === 'TallyRenamed' ? 'name = $4::text' : 'closed = true or $4::text is null';
    const arg = e.type === 'TallyAdded' ? e.data.n : e.type === 'TallyRenamed' ? e.data.name : 'x';
    await tx.query(`update test_tallies set ${set}, revision = $3 where tenant = $1 and id = $2 and revision < $3`, [...key, arg]);
  },
};
