import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { webhookDecider } from '../../aggregates/webhook/webhook.decider.js';
import { webhookEventSchema, type WebhookEvent } from '../../aggregates/webhook/webhook.events.js';
import { parseTopic, topicMatches, type Occurrence } from '../../aggregates/webhook/webhook.topics.js';
import { backoffMs } from '../../src/webhooks/dispatcher.js';
import { foldRecord } from '../../src/webhooks/occurrences.js';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { given } from '../support/decider-spec.js';

const W = '00000000-0000-4000-8000-000000000001';

const created = (): WebhookEvent =>
  given(webhookDecider, [], { schema: webhookEventSchema }).when({ type: 'CreateWebhook', webhookUuid: W, appUuid: null, input: { url: 'https://x.test/in', secret: 'whsec_c2VjcmV0', topic: 'record.deal.created' } }).events()[0]!;
const deleted: WebhookEvent = { type: 'WebhookDeleted', version: 1, data: { webhookUuid: W } };

describe('topic grammar', () => {
  it('parses the three forms and nothing else', () => {
    expect(parseTopic('record.deal.all')).toEqual({ kind: 'record', objectName: 'deal', action: 'all' });
    expect(parseTopic('record.deal.property_changed.amountDue')).toEqual({ kind: 'property_changed', objectName: 'deal', propertyName: 'amountDue' });
    expect(parseTopic('RelationCreated')).toEqual({ kind: 'named', name: 'RelationCreated' });
    for (const bad of ['record.deal', 'record..created', 'record.deal.created.', 'Record.deal.created', 'record.deal.property_changed.', 'record.deal.property_changed.a.b', 'FormSubmission', '']) {
      expect(parseTopic(bad), bad).toBeNull();
    }
  });

  it('matches: all covers every action; property_changed needs an update of that property; PropertyValueChanged any changed value', () => {
    const update: Occurrence = { kind: 'record', objectNames: ['deal', 'thing'], action: 'updated', changed: ['stage'] };
    const create: Occurrence = { kind: 'record', objectNames: ['deal'], action: 'created', changed: [] };
    const m = (topic: string, o: Occurrence) => topicMatches(parseTopic(topic)!, o);
    expect(m('record.deal.all', update)).toBe(true);
    expect(m('record.deal.all', create)).toBe(true);
    expect(m('record.thing.updated', update)).toBe(true);
    expect(m('record.deal.created', update)).toBe(false);
    expect(m('record.other.all', update)).toBe(false);
    expect(m('record.deal.property_changed.stage', update)).toBe(true);
    expect(m('record.deal.property_changed.amount', update)).toBe(false);
    expect(m('record.deal.property_changed.stage', create)).toBe(false);
    expect(m('PropertyValueChanged', update)).toBe(true);
    expect(m('PropertyValueChanged', create)).toBe(false);
    expect(m('RelationCreated', { kind: 'named', name: 'RelationCreated' })).toBe(true);
    expect(m('RelationCreated', update)).toBe(false);
  });
});

describe('webhook decider', () => {
  it('creates with defaults; the secret is not in the event', () => {
    const e = created();
    expect(e).toMatchObject({ type: 'WebhookCreated', data: { webhookUuid: W, topic: 'record.deal.created', webhookFormat: 'structured', retryEnabled: true, maxRetries: 5, retryBackoffMs: 1000, relationLimit: 10 } });
    expect(JSON.stringify(e)).not.toContain('whsec_');
  });

  it('names every missing required field in one error', () => {
    const e = given(webhookDecider).when({ type: 'CreateWebhook', webhookUuid: W, appUuid: null, input: {} }).thenFails('VALIDATION_FAILED');
    expect(e.details.map((d) => d.field)).toEqual(['body.url', 'body.secret', 'body.topic']);
  });

  it('an update emits only what changed; the same values emit nothing; a new secret is told', () => {
    const spec = given(webhookDecider, [created()], { schema: webhookEventSchema });
    spec.when({ type: 'UpdateWebhook', input: { topic: 'record.deal.created', maxRetries: 5 } }).then([]);
    spec.when({ type: 'UpdateWebhook', input: { maxRetries: 2, url: 'https://x.test/in' } }).then([{ type: 'WebhookUpdated', version: 1, data: { changes: { maxRetries: 2 }, secretRotated: false } }]);
    spec.when({ type: 'UpdateWebhook', input: { secret: 'another-secret' } }).then([{ type: 'WebhookUpdated', version: 1, data: { changes: {}, secretRotated: true } }]);
  });

  it('relationFilters must name included relations; a deleted webhook is not found', () => {
    given(webhookDecider, [created()]).when({ type: 'UpdateWebhook', input: { relationFilters: { contacts: { groups: [] } } } }).thenFails('VALIDATION_FAILED', 'includeRelations does not list');
    given(webhookDecider, [created(), deleted]).when({ type: 'UpdateWebhook', input: { maxRetries: 1 } }).thenFails('NOT_FOUND');
    given(webhookDecider, [created(), deleted]).when({ type: 'DeleteWebhook' }).thenFails('NOT_FOUND', 'not found');
  });
});

describe('backoff', () => {
  it('is at least the exponential delay, at most 20 % above it, and capped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 10_000 }), fc.integer({ min: 1, max: 20 }), fc.double({ min: 0, max: 0.999_999, noNaN: true }), (base, n, r) => {
        const cap = 3_600_000;
        const exponential = Math.min(base * 2 ** (n - 1), cap);
        const d = backoffMs(base, n, cap, () => r);
        return d >= exponential && d <= Math.max(exponential * 1.2 + 1, cap) && d <= cap + 1;
      }),
    );
    expect(backoffMs(100, 1, 10_000, () => 0)).toBe(100);
    expect(backoffMs(100, 3, 10_000, () => 0)).toBe(400);
    expect(backoffMs(100, 20, 10_000, () => 0.5)).toBe(10_000);
  });
});

describe('record fold', () => {
  const ev = (type: string, data: Record<string, unknown>, revision: number, at: number) =>
    ({ type, version: 1, data, revision, tenant: 't', streamId: 'record-r', position: revision, checkpoint: '', metadata: { tenant: 't', userUuid: null, requestId: 'x', correlationId: 'x', causationId: null, occurredAt: at, schemaVersion: 1 } }) as StoredEvent;
  it('is the record right after each event', () => {
    const events = [
      ev('RecordCreated', { uuid: 'r', objectUuid: 'o', objectName: 'deal', properties: { a: 1, b: 'x' } }, 0, 10),
      ev('RecordUpdated', { uuid: 'r', objectName: 'deal', changes: { a: { before: 1, after: 2 }, b: { before: 'x', after: null } } }, 1, 20),
      ev('RecordArchived', { uuid: 'r', objectName: 'deal', mode: 'archive' }, 2, 30),
      ev('RecordExtended', { uuid: 'r', objectName: 'deal', extendedObjectUuid: 'p', extendedObjectName: 'thing' }, 3, 40),
      ev('RecordRestored', { uuid: 'r', objectName: 'deal' }, 4, 50),
    ];
    expect(foldRecord(events.slice(0, 2))).toMatchObject({ properties: { a: 2, b: null }, createdAt: 10, updatedAt: 20, deletedAt: null, revision: 1 });
    expect(foldRecord(events.slice(0, 3))).toMatchObject({ deletedAt: 30 });
    expect(foldRecord(events)).toMatchObject({ deletedAt: null, extends: ['p'], extendedNames: { p: 'thing' }, revision: 4 });
  });
});
