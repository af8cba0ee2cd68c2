import { describe, expect, it } from 'vitest';
import { emptyDocument } from '../../aggregates/page/page.document.js';
import { pageDecider, type PageInfo } from '../../aggregates/page/page.decider.js';
import { pageEventSchema, type PageEvent } from '../../aggregates/page/page.events.js';
import type { ModuleCatalogue } from '../../aggregates/page/page.modules.js';
import { given } from '../support/decider-spec.js';

const P = '00000000-0000-4000-8000-0000000000f1';
const R = '00000000-0000-4000-8000-0000000000f2';
const O = '00000000-0000-4000-8000-0000000000f3';
const info: PageInfo = { pageUuid: P, recordUuid: R, objectUuid: O, objectName: 'job', environment: 'live', locale: 'en', template: false };
const schema = { schema: pageEventSchema };
const created: PageEvent = { type: 'PageCreated', version: 1, data: { ...info, document: emptyDocument('Hello', 'hello'), protection: { type: 'none' } } };
const catalogue: ModuleCatalogue = new Map([['hero', { name: 'hero', label: 'Hero', description: '', fields: [{ name: 'heading', type: 'text', required: false }] }]]);
const addHero = { op: 'addModule', module: { module: 'hero', fields: { heading: 'Hi' } } };
const patched: PageEvent = { type: 'PagePatched', version: 1, data: { revision: 1, ops: [{ op: 'addModule', module: { id: 'm1', module: 'hero', fields: { heading: 'Hi' }, hidden: false }, index: 0 }] } };
const NOW = 1_800_000_000;

describe('page decider', () => {
  it('creates a page once; a template announces itself with PageTemplateChanged', () => {
    given(pageDecider, [], schema).when({ type: 'CreatePage', info, title: 'Hello', slug: 'hello', protection: { type: 'none' } }).then([created]);
    given(pageDecider, [created], schema).when({ type: 'CreatePage', info, title: 'Hello', slug: 'hello', protection: { type: 'none' } }).thenFails('CONFLICT');
    const events = given(pageDecider, [], schema).when({ type: 'CreatePage', info: { ...info, template: true }, title: 'T', slug: 'template-1', protection: { type: 'none' } }).events();
    expect(events.map((e) => e.type)).toEqual(['PageCreated', 'PageTemplateChanged']);
    given(pageDecider, [], schema).when({ type: 'PublishPage', now: NOW }).thenFails('NOT_FOUND');
  });

  it('a batch is one revision with its refs resolved; a stale expectedRevision names the current one', () => {
    given(pageDecider, [created], schema).when({ type: 'PatchPage', patches: [addHero], freshIds: ['m1'], catalogue, expectedRevision: 0 }).then([patched]);
    given(pageDecider, [created, patched], schema).when({ type: 'PatchPage', patches: [addHero], freshIds: ['m2'], catalogue, expectedRevision: 0 }).thenFails('WRONG_EXPECTED_REVISION', 'at revision 1');
    given(pageDecider, [created], schema).when({ type: 'PatchPage', patches: [{ op: 'addModule', module: { module: 'hero', fields: { nope: 1 } } }], freshIds: ['m1'], catalogue }).thenFails('VALIDATION_FAILED', 'nope');
    given(pageDecider, [created], schema).when({ type: 'PatchPage', patches: [{ op: 'explode' }], freshIds: [], catalogue: null }).thenFails('VALIDATION_FAILED', 'unknown op');
    // Protection alone changes no revision; the same protection changes nothing.
    given(pageDecider, [created], schema).when({ type: 'PatchPage', patches: [], freshIds: [], catalogue: null, protection: { type: 'members' } }).then([{ type: 'PageProtectionChanged', version: 1, data: { protection: { type: 'members' } } }]);
    given(pageDecider, [created], schema).when({ type: 'PatchPage', patches: [], freshIds: [], catalogue: null, protection: { type: 'none' } }).then([]);
  });

  it('restores a revision the page has, as the next revision', () => {
    const doc = given(pageDecider, [created]).state.document;
    given(pageDecider, [created, patched], schema).when({ type: 'RestoreRevision', fromRevision: 0, snapshot: doc }).then([{ type: 'PageRevisionRestored', version: 1, data: { revision: 2, fromRevision: 0, document: { ...doc, revision: 2 } } }]);
    given(pageDecider, [created, patched], schema).when({ type: 'RestoreRevision', fromRevision: 5, snapshot: null }).thenFails('VALIDATION_FAILED', 'from 0 to 1');
  });

  it('publishes now or at a future second; refuses the past and a publishAt not before a pending unpublishAt', () => {
    const published: PageEvent = { type: 'PagePublished', version: 1, data: { at: NOW, scheduled: false } };
    given(pageDecider, [created], schema).when({ type: 'PublishPage', now: NOW }).then([published]);
    given(pageDecider, [created, published], schema).when({ type: 'PublishPage', now: NOW }).then([]);
    given(pageDecider, [created], schema).when({ type: 'PublishPage', publishAt: NOW - 1, now: NOW }).thenFails('VALIDATION_FAILED', 'in the past');
    given(pageDecider, [created, published], schema).when({ type: 'PublishPage', publishAt: NOW + 60, now: NOW }).thenFails('STATE_NOT_ALLOWED', 'already published');
    const unpublishLater: PageEvent = { type: 'PageUnpublishScheduled', version: 1, data: { unpublishAt: NOW + 60 } };
    given(pageDecider, [created, published], schema).when({ type: 'UnpublishPage', unpublishAt: NOW + 60, now: NOW }).then([unpublishLater]);
    given(pageDecider, [created], schema).when({ type: 'UnpublishPage', unpublishAt: NOW + 60, now: NOW }).thenFails('STATE_NOT_ALLOWED', 'Publish the page first');
  });

  it('a scheduled transition fires once, when due', () => {
    const scheduled: PageEvent = { type: 'PagePublishScheduled', version: 1, data: { publishAt: NOW + 10 } };
    given(pageDecider, [created], schema).when({ type: 'PublishPage', publishAt: NOW + 10, now: NOW }).then([scheduled]);
    given(pageDecider, [created, scheduled], schema).when({ type: 'FireSchedule', now: NOW + 9 }).then([]);
    const fired: PageEvent = { type: 'PagePublished', version: 1, data: { at: NOW + 10, scheduled: true } };
    given(pageDecider, [created, scheduled], schema).when({ type: 'FireSchedule', now: NOW + 11 }).then([fired]);
    given(pageDecider, [created, scheduled, fired], schema).when({ type: 'FireSchedule', now: NOW + 12 }).then([]);
  });
});
