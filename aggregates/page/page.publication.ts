import type { PublicationEvent } from './page.events.js';

/** Where a page stands on publishing; times in epoch seconds. */
export interface Publication {
  /** Made live by a publish (now or fired at its publishAt) and not unpublished since. */
  published: boolean;
  everPublished: boolean;
  /** A publish waiting for its time (only while not published). */
  publishAt: number | null;
  /** An unpublish waiting for its time. */
  unpublishAt: number | null;
}

export const unpublished = (): Publication => ({ published: false, everPublished: false, publishAt: null, unpublishAt: null });

export function evolvePublication(p: Publication, e: PublicationEvent): Publication {
  switch (e.type) {
    case 'PagePublished':
      return { ...p, published: true, everPublished: true, publishAt: null };
    case 'PagePublishScheduled':
      return { ...p, publishAt: e.data.publishAt };
    case 'PageUnpublished':
      return { ...p, published: false, publishAt: null, unpublishAt: null };
    case 'PageUnpublishScheduled':
      return { ...p, unpublishAt: e.data.unpublishAt };
  }
}

/**
 * Whether the page is live at `t` (seconds). Computed from the schedule itself, not from the
 * scheduler's events, so a public read is right to the second even before the scheduler fires.
 */
export function liveAt(p: Publication, t: number): boolean {
  const started = p.published || (p.publishAt !== null && t >= p.publishAt);
  return started && !(p.unpublishAt !== null && t >= p.unpublishAt);
}

/** The page `state` (docs/cms.md): draft, scheduled, published or unpublished, at `t`. */
export function stateAt(p: Publication, t: number): 'draft' | 'scheduled' | 'published' | 'unpublished' {
  if (liveAt(p, t)) return 'published';
  if (p.publishAt !== null && t < p.publishAt) return 'scheduled';
  const startedOnce = p.everPublished || (p.publishAt !== null && t >= p.publishAt);
  return startedOnce ? 'unpublished' : 'draft';
}

/** The transitions due at `t` (seconds) and not yet fired, in the order they fall. */
export function dueTransitions(p: Publication, t: number): PublicationEvent[] {
  const events: PublicationEvent[] = [];
  if (!p.published && p.publishAt !== null && p.publishAt <= t) events.push({ type: 'PagePublished', version: 1, data: { at: p.publishAt, scheduled: true } });
  const willBeLive = p.published || events.length > 0;
  if (willBeLive && p.unpublishAt !== null && p.unpublishAt <= t) events.push({ type: 'PageUnpublished', version: 1, data: { at: p.unpublishAt, scheduled: true } });
  return events;
}
