import type { Decider } from '../kernel/decider.js';
import { DomainError, invalid, notFound } from '../kernel/errors.js';
import type { WebMenuEvent } from './web-menu.events.js';
import { walkItems, type MenuItem, type MenuSettings } from './web-menu.schemas.js';

export type WebMenuCommand =
  | { type: 'CreateWebMenu'; menuUuid: string; settings: MenuSettings }
  | { type: 'UpdateWebMenu'; changes: Partial<MenuSettings> }
  | { type: 'DeleteWebMenu' }
  | { type: 'RestoreWebMenu' };

export interface WebMenuState {
  exists: boolean;
  deleted: boolean;
  menuUuid: string;
  settings: MenuSettings | null;
}

/** At most this many items in one menu, all levels together. */
export const MAX_MENU_ITEMS = 500;

/** An item is a link or a page, not both; the tree holds at most MAX_MENU_ITEMS items. */
export function checkItems(items: readonly MenuItem[]) {
  const all = walkItems(items);
  if (all.length > MAX_MENU_ITEMS) throw invalid('body.items', `body.items: the menu has ${all.length} items`, `Keep a menu to at most ${MAX_MENU_ITEMS} items, all levels together`, 'INVALID_VALUE');
  for (const { item, path } of all) {
    if (item.url !== undefined && item.pageUuid !== undefined) throw invalid(path, `${path}: an item has a url or a pageUuid, not both`, 'Send url for a link, pageUuid for a page of the company, or neither for a heading', 'INVALID_VALUE');
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const deletedMenu = () =>
  new DomainError('STATE_NOT_ALLOWED', 'the web menu is deleted', [{ message: 'A deleted web menu cannot be changed', type: 'GENERAL', correctionSuggestion: 'Restore the web menu first' }]);

export const webMenuDecider: Decider<WebMenuState, WebMenuCommand, WebMenuEvent> = {
  initialState: () => ({ exists: false, deleted: false, menuUuid: '', settings: null }),
  decide(command, state) {
    if (command.type === 'CreateWebMenu') {
      if (state.exists) throw new DomainError('CONFLICT', 'web menu already exists', [{ message: 'A web menu with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
      checkItems(command.settings.items);
      return [{ type: 'WebMenuCreated', version: 1, data: { menuUuid: command.menuUuid, ...command.settings } }];
    }
    if (!state.exists) throw notFound('Web menu', 'requested');
    switch (command.type) {
      case 'UpdateWebMenu': {
        if (state.deleted) throw deletedMenu();
        if (command.changes.items) checkItems(command.changes.items);
        const changes = Object.fromEntries(Object.entries(command.changes).filter(([k, v]) => v !== undefined && !same(v, state.settings![k as keyof MenuSettings])));
        return Object.keys(changes).length === 0 ? [] : [{ type: 'WebMenuUpdated', version: 1, data: { changes } }];
      }
      case 'DeleteWebMenu':
        if (state.deleted) throw new DomainError('STATE_NOT_ALLOWED', 'the web menu is already deleted', [{ message: 'This web menu is deleted', type: 'GENERAL', correctionSuggestion: 'Nothing to delete: restore the web menu to use it again' }]);
        return [{ type: 'WebMenuDeleted', version: 1, data: { menuUuid: state.menuUuid } }];
      case 'RestoreWebMenu':
        if (!state.deleted) throw new DomainError('STATE_NOT_ALLOWED', 'the web menu is not deleted', [{ message: 'Only a deleted web menu can be restored', type: 'GENERAL', correctionSuggestion: 'Nothing to do: the menu is active' }]);
        return [{ type: 'WebMenuRestored', version: 1, data: { menuUuid: state.menuUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'WebMenuCreated': {
        const { menuUuid, name, label, environment, items } = event.data;
        return { exists: true, deleted: false, menuUuid, settings: { name, label, environment, items: items as MenuItem[] } };
      }
      case 'WebMenuUpdated':
        return { ...state, settings: { ...state.settings!, ...(event.data.changes as Partial<MenuSettings>) } };
      case 'WebMenuDeleted':
        return { ...state, deleted: true };
      case 'WebMenuRestored':
        return { ...state, deleted: false };
    }
  },
};
