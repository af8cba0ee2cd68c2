import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import { problems } from '../kernel/problems.js';
import type { SyncEvent, SyncMapping, SyncSettings } from './sync.events.js';

/**
 * The schema facts a sync is checked against, loaded by the handler: the two objects' live
 * properties (name -> type) and the relation's two objects. Null: not found in the company.
 */
export interface SyncSchemaFacts {
  source: { uuid: string; name: string; properties: Readonly<Record<string, string>> } | null;
  target: { uuid: string; name: string; properties: Readonly<Record<string, string>> } | null;
  relation: { uuid: string; fromObjectUuid: string; toObjectUuid: string } | null;
}

export interface SyncInput {
  name?: string;
  label?: string;
  sourceObjectUuid?: string;
  targetObjectUuid?: string;
  relationUuid?: string;
  mappings?: SyncMapping[];
  enabled?: boolean;
}

export type SyncCommand =
  | { type: 'CreateSync'; syncUuid: string; input: SyncInput; facts: SyncSchemaFacts }
  | { type: 'UpdateSync'; input: SyncInput; facts: SyncSchemaFacts }
  | { type: 'DeleteSync' }
  | { type: 'RestoreSync' };

export interface SyncState {
  exists: boolean;
  deleted: boolean;
  syncUuid: string;
  settings: SyncSettings | null;
}

const MAX_MAPPINGS = 50;

/** Merges `input` over `base` and checks it against the schema facts; every problem in one 400. */
function settingsFrom(input: SyncInput, facts: SyncSchemaFacts, base: SyncSettings | null): SyncSettings {
  const p = problems();
  if (!base) {
    for (const field of ['sourceObjectUuid', 'targetObjectUuid', 'relationUuid', 'mappings'] as const) {
      if (input[field] === undefined) p.add(`body.${field}`, `${field} is required`, `Send ${field}`);
    }
  }
  const { source, target, relation } = facts;
  if (!source) p.add('body.sourceObjectUuid', 'the source object does not exist in the selected company', 'Send the uuid of a live object', 'NOT_FOUND');
  if (!target) p.add('body.targetObjectUuid', 'the target object does not exist in the selected company', 'Send the uuid of a live object', 'NOT_FOUND');
  if (!relation) p.add('body.relationUuid', 'the relation does not exist in the selected company', 'Send the uuid of a live relation between the two objects', 'NOT_FOUND');
  if (source && target && relation) {
    const ends = [relation.fromObjectUuid, relation.toObjectUuid].sort().join();
    if (ends !== [source.uuid, target.uuid].sort().join()) {
      p.add('body.relationUuid', 'the relation does not connect the source and the target object', 'Use a relation whose two ends are the source and the target object', 'RELATION_NOT_ALLOWED');
    }
  }
  const mappings = input.mappings ?? base?.mappings ?? [];
  if (mappings.length === 0 || mappings.length > MAX_MAPPINGS) p.add('body.mappings', `a sync maps 1 to ${MAX_MAPPINGS} properties`, 'Send mappings: [{source, target}]', 'INVALID_VALUE');
  const targets = new Set<string>();
  mappings.forEach((m, i) => {
    const sourceType = source?.properties[m.source];
    const targetType = target?.properties[m.target];
    if (source && sourceType === undefined) p.add(`body.mappings.${i}.source`, `${source.name} has no property ${m.source}`, `Use one of: ${Object.keys(source.properties).join(', ') || '(none)'}`, 'INVALID_VALUE');
    if (target && targetType === undefined) p.add(`body.mappings.${i}.target`, `${target.name} has no property ${m.target}`, `Use one of: ${Object.keys(target.properties).join(', ') || '(none)'}`, 'INVALID_VALUE');
    if (sourceType !== undefined && targetType !== undefined && sourceType !== targetType) {
      p.add(`body.mappings.${i}`, `${m.source} (${sourceType}) cannot be copied to ${m.target} (${targetType})`, 'Map properties of the same type', 'INVALID_VALUE');
    }
    if (targets.has(m.target)) p.add(`body.mappings.${i}.target`, `${m.target} is mapped twice`, 'Map each target property once', 'INVALID_VALUE');
    targets.add(m.target);
  });
  p.throwIfAny('The sync has several problems');
  const name = (input.name ?? base?.name ?? `${source!.name}_to_${target!.name}`).trim().slice(0, 200);
  return {
    name,
    label: (input.label ?? base?.label ?? name).trim().slice(0, 200),
    sourceObjectUuid: source!.uuid,
    sourceObjectName: source!.name,
    targetObjectUuid: target!.uuid,
    targetObjectName: target!.name,
    relationUuid: relation!.uuid,
    mappings: mappings.map((m) => ({ source: m.source, target: m.target })),
    enabled: input.enabled ?? base?.enabled ?? true,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const syncDecider: Decider<SyncState, SyncCommand, SyncEvent> = {
  initialState: () => ({ exists: false, deleted: false, syncUuid: '', settings: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateSync':
        if (state.exists) throw new DomainError('CONFLICT', 'sync already exists', [{ message: 'A sync with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        return [{ type: 'SyncCreated', version: 1, data: { ...settingsFrom(command.input, command.facts, null), syncUuid: command.syncUuid } }];
      case 'UpdateSync': {
        if (!state.exists || state.deleted) throw notFound('Sync', state.syncUuid || 'requested');
        const next = settingsFrom(command.input, command.facts, state.settings);
        const changes = Object.fromEntries(
          (Object.keys(next) as (keyof SyncSettings)[]).filter((k) => !same(next[k], state.settings![k])).map((k) => [k, next[k]]),
        ) as Partial<SyncSettings>;
        return Object.keys(changes).length === 0 ? [] : [{ type: 'SyncUpdated', version: 1, data: { changes } }];
      }
      case 'DeleteSync':
        if (!state.exists || state.deleted) throw notFound('Sync', state.syncUuid || 'requested');
        return [{ type: 'SyncDeleted', version: 1, data: { syncUuid: state.syncUuid } }];
      case 'RestoreSync':
        if (!state.exists) throw notFound('Sync', 'requested');
        if (!state.deleted) {
          const message = `Sync ${state.syncUuid} is not deleted`;
          throw new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion: 'Only a deleted sync can be restored' }]);
        }
        return [{ type: 'SyncRestored', version: 1, data: { syncUuid: state.syncUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SyncCreated': {
        const { syncUuid, ...settings } = event.data;
        return { exists: true, deleted: false, syncUuid, settings };
      }
      case 'SyncUpdated':
        return { ...state, settings: { ...state.settings!, ...event.data.changes } };
      case 'SyncDeleted':
        return { ...state, deleted: true };
      case 'SyncRestored':
        return { ...state, deleted: false };
    }
  },
};
