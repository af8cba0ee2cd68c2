import type { Decider } from '../kernel/decider.js';
import { notFound } from '../kernel/errors.js';
import type { InboxEvent, NotificationEvent, NotificationKind, NotificationSubject } from './notification.events.js';

export type NotificationCommand =
  | { type: 'AddNotification'; notificationUuid: string; userUuid: string; kind: NotificationKind; title: string; body: string; subject: NotificationSubject; cause: string }
  | { type: 'ReadNotification'; userUuid: string };

export interface NotificationState {
  exists: boolean;
  notificationUuid: string;
  userUuid: string;
  read: boolean;
}

/**
 * A notification: added once (its uuid comes from its cause and its member, so adding it again
 * after a reactor's restart changes nothing), read once by its member; another member's
 * notification is a 404, as a missing one.
 */
export const notificationDecider: Decider<NotificationState, NotificationCommand, NotificationEvent> = {
  initialState: () => ({ exists: false, notificationUuid: '', userUuid: '', read: false }),
  decide(command, state) {
    switch (command.type) {
      case 'AddNotification': {
        if (state.exists) return [];
        const { type: _t, ...data } = command;
        return [{ type: 'NotificationAdded', version: 1, data: { ...data, title: data.title.slice(0, 200), body: data.body.slice(0, 1000) } }];
      }
      case 'ReadNotification':
        if (!state.exists || state.userUuid !== command.userUuid) throw notFound('Notification', state.notificationUuid || 'requested');
        return state.read ? [] : [{ type: 'NotificationRead', version: 1, data: { notificationUuid: state.notificationUuid, userUuid: state.userUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'NotificationAdded':
        return { exists: true, notificationUuid: event.data.notificationUuid, userUuid: event.data.userUuid, read: false };
      case 'NotificationRead':
        return { ...state, read: true };
    }
  },
};

export type InboxCommand = { type: 'SetInboxPreferences'; userUuid: string; muted: NotificationKind[] };
export interface InboxState {
  muted: NotificationKind[];
}

/** A member's inbox preferences: the kinds it does not receive. */
export const inboxDecider: Decider<InboxState, InboxCommand, InboxEvent> = {
  initialState: () => ({ muted: [] }),
  decide(command, state) {
    const muted = [...new Set(command.muted)].sort();
    return JSON.stringify(muted) === JSON.stringify(state.muted) ? [] : [{ type: 'InboxPreferencesSet', version: 1, data: { userUuid: command.userUuid, muted } }];
  },
  evolve(_state, event) {
    return { muted: event.data.muted };
  },
};
