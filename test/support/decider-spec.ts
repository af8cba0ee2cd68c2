import { expect } from 'vitest';
import { fold, type Decider } from '../../aggregates/kernel/decider.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { DomainEvent } from '../../aggregates/kernel/events.js';

/** What a decider decided for one command, to assert on. */
export interface Outcome<Event> {
  /** The events decided (each parsed by the spec's schema, when it has one). */
  events(): Event[];
  /** The events decided equal `expected`. */
  then(expected: Event[]): void;
  /** The command fails with a DomainError of `code` (every detail with a correction), whose text holds `fragment`. */
  thenFails(code: string, fragment?: string): DomainError;
}

/**
 * The one given/when/then of decider tests: `given(decider, history).when(command)`, then
 * `.then(events)`, `.thenFails(code, fragment)` or `.events()`. With `schema`, every decided event
 * must parse (the events' zod union), so a decider cannot emit what the store would refuse.
 */
export function given<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, history: readonly E[] = [], options: { schema?: { parse(value: unknown): unknown } } = {}) {
  const state = fold(decider, history);
  return {
    state,
    when(command: C): Outcome<E> {
      const events = () => {
        const out = decider.decide(command, state);
        for (const e of out) options.schema?.parse(e);
        return out;
      };
      return {
        events,
        then: (expected) => expect(events()).toEqual(expected),
        thenFails(code, fragment) {
          try {
            events();
          } catch (err) {
            expect(err).toBeInstanceOf(DomainError);
            const e = err as DomainError;
            expect(e.code).toBe(code);
            for (const d of e.details) expect(d.correctionSuggestion.length).toBeGreaterThan(0);
            if (fragment) expect(JSON.stringify([e.message, e.details])).toContain(fragment);
            return e;
          }
          throw new Error('expected the command to fail');
        },
      };
    },
  };
}
