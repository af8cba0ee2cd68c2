import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import { problems } from '../kernel/problems.js';
import { feedFormats, type FeedEvent, type FeedField, type FeedFormat, type FeedSettings } from './feed.events.js';

/**
 * The facts a feed is checked against, loaded by the service: the object (null: not a live object
 * of the company) with its live property names, and whether its filters and sort compile in the
 * records filter language (the compiler's problems, already collected: the decider adds them).
 */
export interface FeedFacts {
  object: { uuid: string; name: string; properties: readonly string[] } | null;
  filterProblems: readonly { field: string; message: string; correctionSuggestion: string }[];
}

export interface FeedInput {
  name?: string;
  title?: string;
  description?: string;
  homeUrl?: string | null;
  objectUuid?: string;
  filters?: FeedSettings['filters'];
  sort?: FeedSettings['sort'];
  fields?: FeedField[];
  format?: FeedFormat;
  enabled?: boolean;
}

export type FeedCommand =
  | { type: 'CreateFeed'; feedUuid: string; tokenHash: string; input: FeedInput; facts: FeedFacts }
  | { type: 'UpdateFeed'; input: FeedInput; facts: FeedFacts }
  | { type: 'RotateFeedToken'; tokenHash: string }
  | { type: 'DeleteFeed' }
  | { type: 'RestoreFeed' };

export interface FeedState {
  exists: boolean;
  deleted: boolean;
  feedUuid: string;
  settings: FeedSettings | null;
}

/** Record fields that are not properties, which a feed may expose. */
export const FEED_SYSTEM_FIELDS = ['uuid', 'createdAt', 'updatedAt'] as const;
export const MAX_FEED_FIELDS = 50;
/** An output name: an XML element name and a JSON key at once (no colon: names live in no namespace). */
export const OUTPUT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

function settingsFrom(input: FeedInput, facts: FeedFacts, base: FeedSettings | null): FeedSettings {
  const p = problems();
  if (!base) for (const field of ['objectUuid', 'fields', 'format'] as const) if (input[field] === undefined) p.add(`body.${field}`, `${field} is required`, `Send ${field}`);
  const { object } = facts;
  if (!object) p.add('body.objectUuid', 'the object does not exist in the selected company', 'Send the uuid of a live object', 'NOT_FOUND');
  for (const f of facts.filterProblems) p.add(f.field, f.message, f.correctionSuggestion, 'INVALID_VALUE');
  const format = input.format ?? base?.format;
  if (format !== undefined && !feedFormats.includes(format)) p.add('body.format', `${String(format)} is not a feed format`, `Use one of: ${feedFormats.join(', ')}`, 'INVALID_VALUE');
  const fields = input.fields ?? base?.fields ?? [];
  if (fields.length === 0 || fields.length > MAX_FEED_FIELDS) p.add('body.fields', `a feed exposes 1 to ${MAX_FEED_FIELDS} fields`, 'Send fields: [{key, as}]', 'INVALID_VALUE');
  const known = new Set<string>([...FEED_SYSTEM_FIELDS, ...(object?.properties ?? [])]);
  const names = new Set<string>();
  fields.forEach((f, i) => {
    if (object && !known.has(f.key)) p.add(`body.fields.${i}.key`, `${object.name} has no field ${f.key}`, `Use one of: ${[...known].join(', ')}`, 'INVALID_VALUE');
    if (!OUTPUT_NAME.test(f.as)) p.add(`body.fields.${i}.as`, 'an output name is a letter or _ then up to 63 letters, digits, _, . or -', 'Send a name such as title or job_title', 'INVALID_VALUE');
    if (names.has(f.as)) p.add(`body.fields.${i}.as`, `${f.as} is used twice`, 'Give each field its own output name', 'INVALID_VALUE');
    names.add(f.as);
  });
  p.throwIfAny('The feed has several problems');
  const name = (input.name ?? base?.name ?? `${object!.name}_feed`).trim().slice(0, 200);
  return {
    name,
    title: (input.title ?? base?.title ?? name).trim().slice(0, 200),
    description: (input.description ?? base?.description ?? '').slice(0, 2000),
    homeUrl: input.homeUrl !== undefined ? input.homeUrl : (base?.homeUrl ?? null),
    objectUuid: object!.uuid,
    objectName: object!.name,
    filters: input.filters ?? base?.filters ?? [],
    sort: input.sort ?? base?.sort ?? [],
    fields: fields.map((f) => ({ key: f.key, as: f.as })),
    format: format!,
    enabled: input.enabled ?? base?.enabled ?? true,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const feedDecider: Decider<FeedState, FeedCommand, FeedEvent> = {
  initialState: () => ({ exists: false, deleted: false, feedUuid: '', settings: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateFeed':
        if (state.exists) throw new DomainError('CONFLICT', 'feed already exists', [{ message: 'A feed with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        return [{ type: 'FeedCreated', version: 1, data: { ...settingsFrom(command.input, command.facts, null), feedUuid: command.feedUuid, tokenHash: command.tokenHash } }];
      case 'UpdateFeed': {
        if (!state.exists || state.deleted) throw notFound('Feed', state.feedUuid || 'requested');
        const next = settingsFrom(command.input, command.facts, state.settings);
        const changes = Object.fromEntries(
          (Object.keys(next) as (keyof FeedSettings)[]).filter((k) => !same(next[k], state.settings![k])).map((k) => [k, next[k]]),
        ) as Partial<FeedSettings>;
        return Object.keys(changes).length === 0 ? [] : [{ type: 'FeedUpdated', version: 1, data: { changes } }];
      }
      case 'RotateFeedToken':
        if (!state.exists || state.deleted) throw notFound('Feed', state.feedUuid || 'requested');
        return [{ type: 'FeedTokenRotated', version: 1, data: { feedUuid: state.feedUuid, tokenHash: command.tokenHash } }];
      case 'DeleteFeed':
        if (!state.exists || state.deleted) throw notFound('Feed', state.feedUuid || 'requested');
        return [{ type: 'FeedDeleted', version: 1, data: { feedUuid: state.feedUuid } }];
      case 'RestoreFeed':
        if (!state.exists) throw notFound('Feed', 'requested');
        if (!state.deleted) {
          const message = `Feed ${state.feedUuid} is not deleted`;
          throw new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion: 'Only a deleted feed can be restored' }]);
        }
        return [{ type: 'FeedRestored', version: 1, data: { feedUuid: state.feedUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'FeedCreated': {
        const { feedUuid, tokenHash: _hash, ...settings } = event.data;
        return { exists: true, deleted: false, feedUuid, settings };
      }
      case 'FeedUpdated':
        return { ...state, settings: { ...state.settings!, ...event.data.changes } };
      case 'FeedTokenRotated':
        return state;
      case 'FeedDeleted':
        return { ...state, deleted: true };
      case 'FeedRestored':
        return { ...state, deleted: false };
    }
  },
};
