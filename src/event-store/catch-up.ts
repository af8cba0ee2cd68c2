import { Observable, Subject } from 'rxjs';
import type { StoredEvent } from '../../aggregates/kernel/events.js';

export interface CatchUpSource {
  readAll(options: { after?: string; maxCount?: number }): Promise<StoredEvent[]>;
  /** Emits whenever new events may be readable. */
  wake: Subject<void>;
  /** Fallback poll, for events held back behind a long open transaction. */
  pollMs: number;
}

const FAST_POLL_MS = 20;
const RECENT_WAKE_MS = 1000;

/**
 * A live feed built from reads: read batches after the checkpoint until one comes back short,
 * then sleep until woken (or the poll fires), and read again. Emits each event exactly once.
 */
export function catchUpSubscription(source: CatchUpSource, after: string | undefined, batchSize: number): Observable<StoredEvent> {
  return new Observable<StoredEvent>((subscriber) => {
    let checkpoint = after;
    let closed = false;
    let pending = false;
    let timer: NodeJS.Timeout | undefined;
    let lastWake = 0;
    let running = false;

    const run = async () => {
      if (running) {
        pending = true;
        return;
      }
      running = true;
      try {
        do {
          pending = false;
          for (;;) {
            const batch = await source.readAll({ after: checkpoint, maxCount: batchSize });
            for (const event of batch) {
              if (closed) return;
              subscriber.next(event);
              checkpoint = event.checkpoint;
            }
            if (batch.length < batchSize || closed) break;
          }
        } while (pending && !closed);
      } catch (err) {
        if (!closed) subscriber.error(err);
        closed = true;
      } finally {
        running = false;
        if (!closed) {
          clearTimeout(timer);
          // Right after a wake, an append may still be invisible behind another open transaction
          // (the xmin horizon): look again soon instead of waiting for the slow poll.
          const recentlyWoken = Date.now() - lastWake < RECENT_WAKE_MS;
          timer = setTimeout(run, recentlyWoken ? Math.min(FAST_POLL_MS, source.pollMs) : source.pollMs);
          timer.unref();
        }
      }
    };

    const wakeSub = source.wake.subscribe(() => {
      lastWake = Date.now();
      void run();
    });
    void run();
    return () => {
      closed = true;
      clearTimeout(timer);
      wakeSub.unsubscribe();
    };
  });
}
