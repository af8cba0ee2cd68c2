import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../kernel/paging.js';
import { problems } from '../kernel/problems.js';
import { compileFilter, resolveKey, sortableTypes, type FilterCatalog } from '../record-filter/filter.compile.js';
import type { FilterGroups, FilterItem, SortItem } from '../record-filter/filter.schema.js';
import type { ViewColumn, ViewEvent, ViewSettings, ViewSharing } from './view.events.js';

/**
 * The outside facts a view is checked against, loaded by the handler: its object (the filter
 * catalog with the related objects' fields, and the names of its select properties) and the team
 * it is shared with. Null: not found (or deleted) in the company.
 */
export interface ViewFacts {
  object: { uuid: string; name: string; catalog: FilterCatalog; selects: readonly string[] } | null;
  team: { uuid: string } | null;
}

/** Who asks: the owner may change its view; `canShare` (the views:share scope, every ADMIN) shares and manages shared views. */
export interface ViewActor {
  userUuid: string | null;
  canShare: boolean;
}

export interface ViewInput {
  name?: string;
  objectUuid?: string;
  columns?: { key: string; width?: number | null }[];
  filters?: FilterItem[];
  groups?: FilterGroups['groups'];
  sort?: SortItem[];
  pageSize?: number;
  groupBy?: string | null;
  sharing?: ViewSharing;
  teamUuid?: string | null;
}

export type ViewCommand =
  | { type: 'CreateView'; viewUuid: string; input: ViewInput; facts: ViewFacts; actor: ViewActor }
  | { type: 'UpdateView'; input: ViewInput; facts: ViewFacts; actor: ViewActor }
  | { type: 'DeleteView'; actor: ViewActor }
  | { type: 'RestoreView'; actor: ViewActor };

export interface ViewState {
  exists: boolean;
  deleted: boolean;
  viewUuid: string;
  ownerUuid: string | null;
  settings: ViewSettings | null;
}

export const MAX_COLUMNS = 200;
export const MIN_WIDTH = 20;
export const MAX_WIDTH = 4000;

const forbidden = (message: string, correctionSuggestion: string) =>
  new DomainError('FORBIDDEN', message, [{ message, type: 'GENERAL', correctionSuggestion }], { roles: [], scopes: ['views:share'] });

/** Merges `input` over `base` and checks it against the facts; every problem in one 400. */
function settingsFrom(input: ViewInput, facts: ViewFacts, base: ViewSettings | null): ViewSettings {
  const p = problems();
  const { object } = facts;
  if (!base && input.objectUuid === undefined) p.add('body.objectUuid', 'objectUuid is required', 'Send the uuid of the object whose records the view shows');
  else if (!object) p.add('body.objectUuid', 'the object does not exist in the selected company', 'Send the uuid of a live object', 'NOT_FOUND');
  const name = (input.name ?? base?.name ?? '').trim();
  if (!name || name.length > 200) p.add('body.name', 'name must have 1 to 200 characters', 'Send a name for the view', 'INVALID_VALUE');

  const catalog: FilterCatalog = object?.catalog ?? { properties: {} };
  const columns: ViewColumn[] = input.columns
    ? input.columns.map((c) => ({ key: c.key, width: c.width ?? null }))
    : (base?.columns ?? Object.keys(catalog.properties).map((key) => ({ key, width: null })));
  if (columns.length > MAX_COLUMNS) p.add('body.columns', `a view shows at most ${MAX_COLUMNS} columns`, 'Send fewer columns', 'INVALID_VALUE');
  const seen = new Set<string>();
  columns.forEach((c, i) => {
    if (object && !resolveKey(catalog, c.key)) p.add(`body.columns.${i}.key`, `${object.name} has no field ${c.key}`, `Use a property or system field: ${Object.keys(catalog.properties).slice(0, 30).join(', ') || '(none)'}`, 'INVALID_VALUE');
    if (seen.has(c.key)) p.add(`body.columns.${i}.key`, `${c.key} is shown twice`, 'Show each field once', 'INVALID_VALUE');
    seen.add(c.key);
    if (c.width !== null && (c.width < MIN_WIDTH || c.width > MAX_WIDTH)) p.add(`body.columns.${i}.width`, `width must be ${MIN_WIDTH} to ${MAX_WIDTH} pixels`, 'Send a width in pixels, or null for the default', 'INVALID_VALUE');
  });

  const sort = input.sort ?? base?.sort ?? [];
  sort.forEach((s, i) => {
    const field = object ? resolveKey(catalog, s.key) : undefined;
    if (object && !field) p.add(`body.sort.${i}.key`, `unknown field "${s.key}"`, 'Sort on a property or system field', 'INVALID_VALUE');
    else if (field && !sortableTypes.includes(field.type)) p.add(`body.sort.${i}.key`, `${s.key} (${field.type}) cannot be sorted`, `Sort on a field of type ${sortableTypes.join(', ')}`, 'INVALID_VALUE');
  });

  const pageSize = input.pageSize ?? base?.pageSize ?? DEFAULT_LIMIT;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_LIMIT) p.add('body.pageSize', `pageSize must be 1 to ${MAX_LIMIT}`, `Send a page size of at most ${MAX_LIMIT}`, 'INVALID_VALUE');

  const groupBy = input.groupBy !== undefined ? input.groupBy : (base?.groupBy ?? null);
  if (groupBy !== null && object && !object.selects.includes(groupBy)) {
    p.add('body.groupBy', `${groupBy} is not a select property of ${object.name}`, `Group by one of: ${object.selects.join(', ') || '(the object has no select property)'}`, 'INVALID_VALUE');
  }

  const sharing = input.sharing ?? base?.sharing ?? 'personal';
  const teamUuid = sharing === 'team' ? (input.teamUuid !== undefined ? input.teamUuid : (base?.teamUuid ?? null)) : null;
  if (sharing === 'team' && !teamUuid) p.add('body.teamUuid', 'a view shared with a team names the team', 'Send teamUuid with sharing: team', 'VALIDATION');
  else if (sharing === 'team' && !facts.team) p.add('body.teamUuid', 'the team does not exist in the selected company', 'Send the uuid of a live team of the company', 'NOT_FOUND');

  const filters = input.filters ?? base?.filters ?? [];
  const groups = input.groups ?? base?.groups ?? [];
  // The records' filter compiler: the same language, operators and value checks as POST /{object}/index.
  if (object) compileFilter(catalog, { filters, groups }, p);
  p.throwIfAny('The view has several problems');
  return { name, objectUuid: object!.uuid, objectName: object!.name, columns, filters, groups, sort, pageSize, groupBy, sharing, teamUuid };
}

/** The owner may change its view; a shared view may also be changed by whoever may share. */
function mayChange(state: ViewState, actor: ViewActor) {
  if (actor.userUuid !== null && actor.userUuid === state.ownerUuid) return;
  if (actor.canShare && state.settings?.sharing !== 'personal') return;
  throw forbidden('Only the owner of this view, or a member with views:share, may change it', 'Ask the owner, or an ADMIN of the company');
}

function mayShare(sharing: ViewSharing, actor: ViewActor) {
  if (sharing !== 'personal' && !actor.canShare) {
    throw forbidden(`Sharing a view with the ${sharing} needs the scope views:share`, 'Keep the view personal, or ask an ADMIN for views:share');
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const viewDecider: Decider<ViewState, ViewCommand, ViewEvent> = {
  initialState: () => ({ exists: false, deleted: false, viewUuid: '', ownerUuid: null, settings: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateView': {
        if (state.exists) throw new DomainError('CONFLICT', 'view already exists', [{ message: 'A view with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        const settings = settingsFrom(command.input, command.facts, null);
        mayShare(settings.sharing, command.actor);
        return [{ type: 'ViewCreated', version: 1, data: { ...settings, viewUuid: command.viewUuid, ownerUuid: command.actor.userUuid } }];
      }
      case 'UpdateView': {
        if (!state.exists || state.deleted) throw notFound('View', state.viewUuid || 'requested');
        mayChange(state, command.actor);
        const next = settingsFrom(command.input, command.facts, state.settings);
        if (next.sharing !== state.settings!.sharing || next.teamUuid !== state.settings!.teamUuid) mayShare(next.sharing, command.actor);
        const changes = Object.fromEntries(
          (Object.keys(next) as (keyof ViewSettings)[]).filter((k) => !same(next[k], state.settings![k])).map((k) => [k, next[k]]),
        ) as Partial<ViewSettings>;
        return Object.keys(changes).length === 0 ? [] : [{ type: 'ViewUpdated', version: 1, data: { changes } }];
      }
      case 'DeleteView':
        if (!state.exists || state.deleted) throw notFound('View', state.viewUuid || 'requested');
        mayChange(state, command.actor);
        return [{ type: 'ViewDeleted', version: 1, data: { viewUuid: state.viewUuid } }];
      case 'RestoreView':
        if (!state.exists) throw notFound('View', 'requested');
        mayChange(state, command.actor);
        if (!state.deleted) {
          const message = `View ${state.viewUuid} is not deleted`;
          throw new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion: 'Only a deleted view can be restored' }]);
        }
        return [{ type: 'ViewRestored', version: 1, data: { viewUuid: state.viewUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ViewCreated': {
        const { viewUuid, ownerUuid, ...settings } = event.data;
        return { exists: true, deleted: false, viewUuid, ownerUuid, settings };
      }
      case 'ViewUpdated':
        return { ...state, settings: { ...state.settings!, ...event.data.changes } };
      case 'ViewDeleted':
        return { ...state, deleted: true };
      case 'ViewRestored':
        return { ...state, deleted: false };
    }
  },
};
