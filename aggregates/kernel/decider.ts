import type { DomainEvent } from './events.js';

/**
 * A decider as plain functions: `decide` turns a command and the current state into events (or
 * throws a DomainError), `evolve` folds one event into the state. Time, ids, actor and tenant
 * arrive inside the command; deciders do no I/O.
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  initialState: () => State;
  decide: (command: Command, state: State) => Event[];
  evolve: (state: State, event: Event) => State;
}

/** Folds a stream's events into a state. */
export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>,
  events: Iterable<Event>,
): State {
  let state = decider.initialState();
  for (const event of events) state = decider.evolve(state, event);
  return state;
}
