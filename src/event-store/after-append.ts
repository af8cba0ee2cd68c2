import type { EventStore } from './port.js';

/** The same store, calling (and awaiting) `then` with the stream of every append once it has committed. */
export function afterAppend(store: EventStore, then: (streamId: string, tenant: string) => unknown): EventStore {
  return {
    ...store,
    async append(tenant, streamId, events, options) {
      const result = await store.append(tenant, streamId, events, options);
      await then(streamId, tenant);
      return result;
    },
  };
}
