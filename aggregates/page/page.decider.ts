import type { Decider } from '../kernel/decider.js';
import { DomainError, invalid, notFound } from '../kernel/errors.js';
import { applyBatch, emptyDocument, type PageDocument } from './page.document.js';
import { publicationEventTypes, type PageEvent, type PublicationEvent, type StoredProtection } from './page.events.js';
import type { ModuleCatalogue } from './page.modules.js';
import { resolvePatches, type PagePatchInput } from './page.patch.js';
import { dueTransitions, evolvePublication, unpublished, type Publication } from './page.publication.js';

export interface PageInfo {
  pageUuid: string;
  recordUuid: string;
  objectUuid: string;
  objectName: string;
  environment: string;
  locale: string;
  template: boolean;
}

export interface PageState {
  exists: boolean;
  info: PageInfo | null;
  document: PageDocument;
  protection: StoredProtection;
  publication: Publication;
}

/** `now` is epoch seconds here: publishing speaks seconds (spec 3). */
export type PageCommand =
  | { type: 'CreatePage'; info: PageInfo; title: string; slug: string; protection: StoredProtection; document?: Omit<PageDocument, 'revision' | 'version' | 'title' | 'slug'> }
  | { type: 'PatchPage'; patches: readonly PagePatchInput[]; freshIds: readonly string[]; catalogue: ModuleCatalogue | null; protection?: StoredProtection; expectedRevision?: number }
  | { type: 'RestoreRevision'; fromRevision: number; snapshot: PageDocument | null }
  | { type: 'PublishPage'; publishAt?: number; now: number }
  | { type: 'UnpublishPage'; unpublishAt?: number; now: number }
  | { type: 'FireSchedule'; now: number };

const scheduleError = (field: string, message: string, suggestion: string) => invalid(field, `${field}: ${message}`, suggestion, 'INVALID_DATE');

function publish(p: Publication, publishAt: number | undefined, now: number): PublicationEvent[] {
  if (publishAt === undefined || publishAt <= now) {
    if (publishAt !== undefined && publishAt < now) throw scheduleError('body.publishAt', `${publishAt} is in the past`, `Send a time after now (${now}), or leave publishAt out to publish now`);
    return p.published && p.publishAt === null ? [] : [{ type: 'PagePublished', version: 1, data: { at: now, scheduled: false } }];
  }
  if (p.published) throw new DomainError('STATE_NOT_ALLOWED', 'the page is already published', [{ message: 'A published page cannot be scheduled to publish', type: 'GENERAL', correctionSuggestion: 'Unpublish it first, or schedule an unpublishAt' }]);
  if (p.unpublishAt !== null && p.unpublishAt <= publishAt) throw scheduleError('body.publishAt', `it is not before the scheduled unpublishAt ${p.unpublishAt}`, 'Send a publishAt before the unpublishAt, or unpublish the page first to clear it');
  return [{ type: 'PagePublishScheduled', version: 1, data: { publishAt } }];
}

function unpublish(p: Publication, unpublishAt: number | undefined, now: number): PublicationEvent[] {
  if (unpublishAt === undefined || unpublishAt <= now) {
    if (unpublishAt !== undefined && unpublishAt < now) throw scheduleError('body.unpublishAt', `${unpublishAt} is in the past`, `Send a time after now (${now}), or leave unpublishAt out to unpublish now`);
    return !p.published && p.publishAt === null && p.unpublishAt === null ? [] : [{ type: 'PageUnpublished', version: 1, data: { at: now, scheduled: false } }];
  }
  if (!p.published && p.publishAt === null) throw new DomainError('STATE_NOT_ALLOWED', 'the page is not published', [{ message: 'Only a published or scheduled page can be scheduled to unpublish', type: 'GENERAL', correctionSuggestion: 'Publish the page first' }]);
  if (p.publishAt !== null && unpublishAt <= p.publishAt) throw scheduleError('body.unpublishAt', `it is not after the scheduled publishAt ${p.publishAt}`, `Send an unpublishAt after ${p.publishAt}`);
  return [{ type: 'PageUnpublishScheduled', version: 1, data: { unpublishAt } }];
}

/** A 409 naming the document's current revision: the editor reloads and applies its change again. */
export const staleRevision = (expected: number, actual: number) =>
  new DomainError('WRONG_EXPECTED_REVISION', `expectedRevision ${expected} is stale: the page is at revision ${actual}`, [
    { message: `The page document is at revision ${actual}, not ${expected}`, type: 'GENERAL', correctionSuggestion: `Read the page again and send its changes with expectedRevision ${actual}` },
  ], { actualRevision: actual });

const templateChanged = (info: PageInfo, revision: number): PageEvent => ({
  type: 'PageTemplateChanged',
  version: 1,
  data: { pageUuid: info.pageUuid, objectUuid: info.objectUuid, objectName: info.objectName, environment: info.environment, locale: info.locale, revision },
});

const isPublication = (e: PageEvent): e is PublicationEvent => (publicationEventTypes as readonly string[]).includes(e.type);

export const pageDecider: Decider<PageState, PageCommand, PageEvent> = {
  initialState: () => ({ exists: false, info: null, document: emptyDocument('', ''), protection: { type: 'none' }, publication: unpublished() }),
  decide(command, state) {
    if (command.type === 'CreatePage') {
      if (state.exists) throw new DomainError('CONFLICT', 'the page already exists', [{ message: 'A page with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
      const document = { ...emptyDocument(command.title, command.slug), ...command.document };
      const created: PageEvent = { type: 'PageCreated', version: 1, data: { ...command.info, document, protection: command.protection } };
      return command.info.template ? [created, templateChanged(command.info, 0)] : [created];
    }
    if (!state.exists) throw notFound('Webpage', 'requested');
    const next = state.document.revision + 1;
    switch (command.type) {
      case 'PatchPage': {
        if (command.expectedRevision !== undefined && command.expectedRevision !== state.document.revision) throw staleRevision(command.expectedRevision, state.document.revision);
        const events: PageEvent[] = [];
        if (command.patches.length > 0) {
          const { ops } = resolvePatches(state.document, command.patches, command.freshIds, command.catalogue);
          events.push({ type: 'PagePatched', version: 1, data: { revision: next, ops } });
        }
        if (command.protection && JSON.stringify(command.protection) !== JSON.stringify(state.protection)) events.push({ type: 'PageProtectionChanged', version: 1, data: { protection: command.protection } });
        if (events.length > 0 && state.info!.template) events.push(templateChanged(state.info!, next));
        return events;
      }
      case 'RestoreRevision': {
        if (!command.snapshot || command.fromRevision < 0 || command.fromRevision > state.document.revision) {
          throw invalid('params.index', `params.index: the page has no revision ${command.fromRevision}`, `Use a history index from 0 to ${state.document.revision}`, 'INVALID_VALUE');
        }
        return [{ type: 'PageRevisionRestored', version: 1, data: { revision: next, fromRevision: command.fromRevision, document: { ...command.snapshot, revision: next } } }];
      }
      case 'PublishPage':
        return publish(state.publication, command.publishAt, command.now);
      case 'UnpublishPage':
        return unpublish(state.publication, command.unpublishAt, command.now);
      case 'FireSchedule':
        return dueTransitions(state.publication, command.now);
    }
  },
  evolve(state, event) {
    if (isPublication(event)) return { ...state, publication: evolvePublication(state.publication, event) };
    switch (event.type) {
      case 'PageCreated': {
        const { document, protection, ...info } = event.data;
        return { exists: true, info, document, protection, publication: unpublished() };
      }
      case 'PagePatched':
        return { ...state, document: applyBatch(state.document, event.data.ops, event.data.revision) };
      case 'PageRevisionRestored':
        return { ...state, document: event.data.document };
      case 'PageProtectionChanged':
        return { ...state, protection: event.data.protection };
      case 'PageTemplateChanged':
        return state;
    }
    return state;
  },
};
