import { invalid } from '../kernel/errors.js';

/** The record actions a `record.{objectName}.{action}` topic may name; `all` stands for every one of them. */
export const recordActions = ['created', 'updated', 'deleted', 'archived', 'restored'] as const;
export type RecordAction = (typeof recordActions)[number];

/** Webpage events (issue 16, docs/cms.md): each is its own topic, named as the event. */
export const pageTopics = ['PageCreated', 'PagePatched', 'PageRevisionRestored', 'PagePublished', 'PageUnpublished', 'PageTemplateChanged'] as const;

/** Topics that name an event rather than a record action. */
export const namedTopics = ['FormSubmissionEvent', 'PropertyValueChanged', 'RelationCreated', ...pageTopics] as const;
export type NamedTopic = (typeof namedTopics)[number];

export type Topic =
  | { kind: 'record'; objectName: string; action: RecordAction | 'all' }
  | { kind: 'property_changed'; objectName: string; propertyName: string }
  | { kind: 'named'; name: NamedTopic };

export const TOPIC_GRAMMAR =
  'record.{objectName}.{created|updated|deleted|archived|restored|all}, record.{objectName}.property_changed.{propertyName}, FormSubmissionEvent, PropertyValueChanged, RelationCreated, or a page event: PageCreated, PagePatched, PageRevisionRestored, PagePublished, PageUnpublished, PageTemplateChanged';

const OBJECT = '[a-z][a-z0-9_]{0,62}';
const PROPERTY = '[A-Za-z][A-Za-z0-9_]{0,62}';
const RECORD_TOPIC = new RegExp(`^record\\.(${OBJECT})\\.(created|updated|deleted|archived|restored|all)$`);
const PROPERTY_TOPIC = new RegExp(`^record\\.(${OBJECT})\\.property_changed\\.(${PROPERTY})$`);

/** Parses a topic string; null when it does not follow the grammar. */
export function parseTopic(raw: string): Topic | null {
  const named = namedTopics.find((n) => n === raw);
  if (named) return { kind: 'named', name: named };
  const record = RECORD_TOPIC.exec(raw);
  if (record) return { kind: 'record', objectName: record[1]!, action: record[2] as RecordAction | 'all' };
  const property = PROPERTY_TOPIC.exec(raw);
  if (property) return { kind: 'property_changed', objectName: property[1]!, propertyName: property[2]! };
  return null;
}

/** Parses a topic or throws the 400 that names the grammar. */
export function checkTopic(raw: string, field = 'body.topic'): Topic {
  const topic = parseTopic(raw.trim());
  if (!topic) {
    throw invalid(field, `topic "${raw}" does not follow the topic grammar`, `Use one of: ${TOPIC_GRAMMAR}`, 'INVALID_VALUE');
  }
  return topic;
}

/**
 * What happened, as the matcher sees it: the facts of one log event that topics can name. Built
 * from the event by the shell (`src/webhooks/webhook-events.ts`), so this stays free of record
 * event shapes it does not own.
 */
export type Occurrence =
  | { kind: 'record'; objectNames: readonly string[]; action: RecordAction; changed: readonly string[] }
  | { kind: 'named'; name: NamedTopic };

/** Whether a webhook subscribed to `topic` is told about `occurrence`. */
export function topicMatches(topic: Topic, occurrence: Occurrence): boolean {
  switch (topic.kind) {
    case 'named':
      if (occurrence.kind === 'named') return occurrence.name === topic.name;
      // PropertyValueChanged: any update that changed a value, whatever the object.
      return topic.name === 'PropertyValueChanged' && occurrence.action === 'updated' && occurrence.changed.length > 0;
    case 'record':
      return occurrence.kind === 'record' && occurrence.objectNames.includes(topic.objectName) && (topic.action === 'all' || topic.action === occurrence.action);
    case 'property_changed':
      return (
        occurrence.kind === 'record' &&
        occurrence.action === 'updated' &&
        occurrence.objectNames.includes(topic.objectName) &&
        occurrence.changed.includes(topic.propertyName)
      );
  }
}

/** The topic string of an occurrence for one object (the `type` of a structured payload). */
export function topicOf(occurrence: Occurrence, objectName?: string): string {
  if (occurrence.kind === 'named') return occurrence.name;
  return `record.${objectName ?? occurrence.objectNames[0]}.${occurrence.action}`;
}
