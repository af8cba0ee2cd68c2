import type { Decider } from '../kernel/decider.js';
import type { TrackingSiteEvent } from './tracking-site.events.js';

/** The new key arrives in the command (deciders make no randomness). */
export type TrackingSiteCommand = { type: 'IssueSiteKey'; siteKey: string };

export interface TrackingSiteState {
  siteKey: string | null;
}

/** A company's public site key for visitor tracking: issuing one again rotates it (the old one stops working). */
export const trackingSiteDecider: Decider<TrackingSiteState, TrackingSiteCommand, TrackingSiteEvent> = {
  initialState: () => ({ siteKey: null }),
  decide(command, state) {
    if (command.siteKey === state.siteKey) return [];
    return [{ type: 'TrackingSiteKeyIssued', version: 1, data: { siteKey: command.siteKey, rotated: state.siteKey !== null } }];
  },
  evolve: (_state, event) => ({ siteKey: event.data.siteKey }),
};
