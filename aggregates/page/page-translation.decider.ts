import type { Decider } from '../kernel/decider.js';
import type { PageTranslationEvent } from './page-translation.events.js';

/** Link or unlink two pages as translations of each other (one stream per pair). */
export type TranslationCommand = { type: 'Link' | 'Unlink'; pageUuid: string; otherUuid: string };

export interface TranslationState {
  linked: boolean;
}

/** Linking twice or unlinking what is not linked changes nothing. */
export const translationDecider: Decider<TranslationState, TranslationCommand, PageTranslationEvent> = {
  initialState: () => ({ linked: false }),
  decide(command, state) {
    const data = { pageUuid: command.pageUuid, otherUuid: command.otherUuid };
    if (command.type === 'Link') return state.linked ? [] : [{ type: 'PageTranslationLinked', version: 1, data }];
    return state.linked ? [{ type: 'PageTranslationUnlinked', version: 1, data }] : [];
  },
  evolve: (_, e) => ({ linked: e.type === 'PageTranslationLinked' }),
};
