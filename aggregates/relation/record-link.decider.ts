import type { Decider } from '../kernel/decider.js';
import { sameJson } from '../kernel/same-json.js';
import { notFound } from '../kernel/errors.js';
import { problems } from '../kernel/problems.js';
import type { EdgePropertyDefinition } from './relation.schemas.js';
import type { RecordLinkEvent } from './record-link.events.js';

export type EdgeValues = Record<string, unknown>;

export type RecordLinkCommand =
  /** `edgeDefinitions`: the relation's edge properties, loaded by the handler (which also checked the relation is live). */
  | { type: 'ConnectRecords'; relationUuid: string; fromRecordUuid: string; toRecordUuid: string; edgeProperties: EdgeValues; edgeDefinitions: readonly EdgePropertyDefinition[] }
  | { type: 'DisconnectRecords'; relationUuid: string; fromRecordUuid: string; toRecordUuid: string };

export interface RecordLinkState {
  connected: boolean;
  edgeProperties: EdgeValues;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function fits(type: EdgePropertyDefinition['type'], value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value));
    case 'datetime':
      return typeof value === 'string' && !DATE.test(value) && !Number.isNaN(Date.parse(value));
    case 'json':
      return true;
  }
}

/** Checks edge values against the relation's edge properties: known names, right types, required ones present. */
export function checkEdgeValues(values: EdgeValues, definitions: readonly EdgePropertyDefinition[]): EdgeValues {
  const p = problems();
  const byName = new Map(definitions.map((d) => [d.name, d]));
  for (const [name, value] of Object.entries(values)) {
    const definition = byName.get(name);
    if (!definition) {
      const known = definitions.map((d) => d.name).join(', ');
      p.add(`body.edgeProperties.${name}`, 'the relation has no such edge property', known ? `Use one of: ${known}` : 'This relation takes no edge properties: declare them on the relation first');
    } else if (value !== null && !fits(definition.type, value)) {
      p.add(`body.edgeProperties.${name}`, `expected a value of type ${definition.type}`, `Send ${name} as ${definition.type}${definition.type === 'date' ? ' (YYYY-MM-DD)' : definition.type === 'datetime' ? ' (ISO 8601)' : ''}`, definition.type.startsWith('date') ? 'INVALID_DATE' : 'INVALID_VALUE');
    }
  }
  for (const d of definitions) {
    if (d.required && (values[d.name] === undefined || values[d.name] === null)) p.add(`body.edgeProperties.${d.name}`, 'is required', `Send ${d.name} (${d.type})`);
  }
  p.throwIfAny('The edge properties have several problems');
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null));
}


/**
 * A connection between two records. Connecting again with other edge values updates them; the
 * cardinality is not checked here but by the read model's unique indexes, in the append's
 * transaction, since it spans many connection streams.
 */
export const recordLinkDecider: Decider<RecordLinkState, RecordLinkCommand, RecordLinkEvent> = {
  initialState: () => ({ connected: false, edgeProperties: {} }),
  decide(command, state) {
    switch (command.type) {
      case 'ConnectRecords': {
        const edgeProperties = checkEdgeValues(command.edgeProperties, command.edgeDefinitions);
        if (!state.connected) {
          const { relationUuid, fromRecordUuid, toRecordUuid } = command;
          return [{ type: 'RecordsConnected', version: 1, data: { relationUuid, fromRecordUuid, toRecordUuid, edgeProperties } }];
        }
        return sameJson(edgeProperties, state.edgeProperties) ? [] : [{ type: 'RecordLinkUpdated', version: 1, data: { edgeProperties } }];
      }
      case 'DisconnectRecords': {
        if (!state.connected) throw notFound('Connection', `${command.fromRecordUuid} -> ${command.toRecordUuid}`);
        const { relationUuid, fromRecordUuid, toRecordUuid } = command;
        return [{ type: 'RecordsDisconnected', version: 1, data: { relationUuid, fromRecordUuid, toRecordUuid } }];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'RecordsConnected':
        return { connected: true, edgeProperties: event.data.edgeProperties };
      case 'RecordLinkUpdated':
        return { ...state, edgeProperties: event.data.edgeProperties };
      case 'RecordsDisconnected':
        return { connected: false, edgeProperties: {} };
    }
  },
};
