import { describe, expect, it } from 'vitest';
import { appDecider, initialProfile } from '../../aggregates/app/app.decider.js';
import { appEventSchema, type AppEvent } from '../../aggregates/app/app.events.js';
import { given } from '../support/decider-spec.js';

const A = '00000000-0000-4000-8000-0000000000a1';
const schema = { schema: appEventSchema };
const created = (visibility: 'PUBLIC' | 'PRIVATE' = 'PUBLIC'): AppEvent => ({ type: 'AppCreated', version: 1, data: { appUuid: A, visibility, label: 'Shop', description: 'Sells' } });
const submitted: AppEvent = { type: 'AppSubmitted', version: 1, data: { note: '' } };
const reviewed = (outcome: 'APPROVE' | 'REJECT' | 'REQUEST_CHANGES', state: 'APPROVED' | 'REJECTED' | 'CHANGES_REQUESTED'): AppEvent => ({
  type: 'AppReviewed',
  version: 1,
  data: { outcome, state, feedback: '', reviewerNotes: '', reviewerUuid: null },
});
const review = (outcome: 'APPROVE' | 'REJECT' | 'REQUEST_CHANGES') => ({ type: 'ReviewApp' as const, outcome, feedback: 'ok', reviewerNotes: '', reviewerUuid: null });
const module = (name: string) => ({ name, label: name, description: '', fields: [] });

describe('app decider', () => {
  it('creates an app once, trimming its label and description', () => {
    given(appDecider, [], schema).when({ type: 'CreateApp', appUuid: A, visibility: 'PUBLIC', label: ' Shop ', description: ' Sells ' }).then([created()]);
    given(appDecider, [created()], schema).when({ type: 'CreateApp', appUuid: A, visibility: 'PUBLIC', label: 'x', description: '' }).thenFails('CONFLICT', 'uuid');
    given(appDecider, [], schema).when({ type: 'SubmitApp', note: '' }).thenFails('NOT_FOUND');
  });

  it('a public app goes DRAFT -> SUBMITTED -> reviewed; only a submitted app is reviewed', () => {
    given(appDecider, [created()], schema).when(review('APPROVE')).thenFails('STATE_NOT_ALLOWED', 'DRAFT');
    given(appDecider, [created()], schema).when({ type: 'SubmitApp', note: 'please' }).then([{ type: 'AppSubmitted', version: 1, data: { note: 'please' } }]);
    given(appDecider, [created(), submitted], schema).when({ type: 'SubmitApp', note: '' }).thenFails('STATE_NOT_ALLOWED', 'SUBMITTED');
    expect(given(appDecider, [created(), submitted], schema).when(review('REQUEST_CHANGES')).events()).toMatchObject([{ type: 'AppReviewed', data: { state: 'CHANGES_REQUESTED' } }]);
    // Changes requested: it may change and be submitted again.
    const asked = [created(), submitted, reviewed('REQUEST_CHANGES', 'CHANGES_REQUESTED')];
    expect(given(appDecider, asked, schema).when({ type: 'SubmitApp', note: '' }).events()).toHaveLength(1);
  });

  it('a private app is approved at once and never submitted', () => {
    expect(given(appDecider, [created('PRIVATE')]).state.review).toBe('APPROVED');
    given(appDecider, [created('PRIVATE')], schema).when({ type: 'SubmitApp', note: '' }).thenFails('STATE_NOT_ALLOWED', 'Private apps are not reviewed');
  });

  it('an update emits only a changed profile, and not while submitted or once rejected', () => {
    const profile = { ...initialProfile('Shop', 'Sells'), details: 'More' };
    given(appDecider, [created()], schema).when({ type: 'UpdateApp', profile: initialProfile('Shop', 'Sells') }).then([]);
    given(appDecider, [created()], schema).when({ type: 'UpdateApp', profile }).then([{ type: 'AppUpdated', version: 1, data: { profile } }]);
    given(appDecider, [created(), submitted], schema).when({ type: 'UpdateApp', profile }).thenFails('STATE_NOT_ALLOWED', 'Wait for the review');
    given(appDecider, [created(), submitted, reviewed('REJECT', 'REJECTED')], schema).when({ type: 'UpdateApp', profile }).thenFails('STATE_NOT_ALLOWED', 'create a new app');
    const twice = { ...profile, settingsSchema: [1, 2].map(() => ({ name: 'k', label: 'K', description: '', type: 'TEXT' as const, scope: 'COMPANY' as const, required: false, default: null, options: null, optionsUrl: null })) };
    given(appDecider, [created()], schema).when({ type: 'UpdateApp', profile: twice }).thenFails('VALIDATION_FAILED', 'used twice');
  });

  it('replacing the CMS modules names the retired ones; the same catalog changes nothing; a name twice is refused', () => {
    const first: AppEvent = { type: 'AppCmsModulesReplaced', version: 1, data: { modules: [module('hero'), module('text')], retired: [] } };
    given(appDecider, [created()], schema).when({ type: 'ReplaceCmsModules', modules: [module('hero'), module('text')] }).then([first]);
    given(appDecider, [created(), first], schema).when({ type: 'ReplaceCmsModules', modules: [module('hero'), module('text')] }).then([]);
    given(appDecider, [created(), first], schema).when({ type: 'ReplaceCmsModules', modules: [module('hero')] }).then([{ type: 'AppCmsModulesReplaced', version: 1, data: { modules: [module('hero')], retired: ['text'] } }]);
    given(appDecider, [created()], schema).when({ type: 'ReplaceCmsModules', modules: [module('hero'), module('hero')] }).thenFails('VALIDATION_FAILED', 'hero is used twice');
  });
});
