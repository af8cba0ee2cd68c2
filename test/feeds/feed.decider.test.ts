import { describe, expect, it } from 'vitest';
import { feedDecider, type FeedFacts } from '../../aggregates/feed/feed.decider.js';
import { feedEventSchema, type FeedEvent } from '../../aggregates/feed/feed.events.js';
import { given } from '../support/decider-spec.js';

const F = '00000000-0000-4000-8000-000000000001';
const O = '00000000-0000-4000-8000-00000000000a';
const facts: FeedFacts = { object: { uuid: O, name: 'job', properties: ['title', 'city'] }, filterProblems: [] };
const input = { objectUuid: O, format: 'rss' as const, fields: [{ key: 'title', as: 'title' }, { key: 'uuid', as: 'guid' }] };
const schema = { schema: feedEventSchema };
const created = (): FeedEvent => given(feedDecider, [], schema).when({ type: 'CreateFeed', feedUuid: F, tokenHash: 'h1', input, facts }).events()[0]!;
const deleted: FeedEvent = { type: 'FeedDeleted', version: 1, data: { feedUuid: F } };

describe('feed decider', () => {
  it('creates a feed named after its object, with the token hash only', () => {
    expect(created()).toMatchObject({ type: 'FeedCreated', data: { feedUuid: F, tokenHash: 'h1', name: 'job_feed', title: 'job_feed', objectName: 'job', filters: [], sort: [], enabled: true, homeUrl: null } });
    given(feedDecider, [created()], schema).when({ type: 'CreateFeed', feedUuid: F, tokenHash: 'h2', input, facts }).thenFails('CONFLICT');
  });

  it('names every problem at once: object, filter, unknown field, output names', () => {
    const bad = { ...input, fields: [{ key: 'nope', as: 'title' }, { key: 'city', as: '1x' }, { key: 'city', as: 'title' }] };
    const withFilter = { ...facts, filterProblems: [{ field: 'body.filters.0.key', message: 'unknown property', correctionSuggestion: 'Use a property' }] };
    given(feedDecider, [], schema).when({ type: 'CreateFeed', feedUuid: F, tokenHash: 'h', input: bad, facts: withFilter }).thenFails('VALIDATION_FAILED', 'several problems');
    given(feedDecider, [], schema).when({ type: 'CreateFeed', feedUuid: F, tokenHash: 'h', input, facts: { object: null, filterProblems: [] } }).thenFails('VALIDATION_FAILED', 'does not exist');
  });

  it('an update emits only what changed; nothing when nothing did', () => {
    given(feedDecider, [created()], schema).when({ type: 'UpdateFeed', input: { format: 'json' }, facts }).then([{ type: 'FeedUpdated', version: 1, data: { changes: { format: 'json' } } }]);
    given(feedDecider, [created()], schema).when({ type: 'UpdateFeed', input: { format: 'rss' }, facts }).then([]);
  });

  it('rotates the token of a live feed only; deleted feeds restore once', () => {
    given(feedDecider, [created()], schema).when({ type: 'RotateFeedToken', tokenHash: 'h2' }).then([{ type: 'FeedTokenRotated', version: 1, data: { feedUuid: F, tokenHash: 'h2' } }]);
    given(feedDecider, [created(), deleted], schema).when({ type: 'RotateFeedToken', tokenHash: 'h2' }).thenFails('NOT_FOUND');
    given(feedDecider, [created(), deleted], schema).when({ type: 'RestoreFeed' }).then([{ type: 'FeedRestored', version: 1, data: { feedUuid: F } }]);
    given(feedDecider, [created()], schema).when({ type: 'RestoreFeed' }).thenFails('STATE_NOT_ALLOWED', 'Only a deleted feed can be restored');
    given(feedDecider, [], schema).when({ type: 'DeleteFeed' }).thenFails('NOT_FOUND');
    expect(feedDecider.initialState().exists).toBe(false);
  });
});
