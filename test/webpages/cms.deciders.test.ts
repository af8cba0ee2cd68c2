import { describe, expect, it } from 'vitest';
import { environmentDecider } from '../../aggregates/environment/environment.decider.js';
import { environmentEventSchema, type EnvironmentEvent } from '../../aggregates/environment/environment.events.js';
import { moduleDecider } from '../../aggregates/module/module.decider.js';
import { moduleEventSchema, type ModuleEvent } from '../../aggregates/module/module.events.js';
import { translationDecider } from '../../aggregates/page/page-translation.decider.js';
import { pageTranslationEventSchema, type PageTranslationEvent } from '../../aggregates/page/page-translation.events.js';
import { MAX_MENU_ITEMS, webMenuDecider } from '../../aggregates/web-menu/web-menu.decider.js';
import { webMenuEventSchema, type WebMenuEvent } from '../../aggregates/web-menu/web-menu.events.js';
import { given } from '../support/decider-spec.js';

const E1 = '00000000-0000-4000-8000-0000000000e1';
const E2 = '00000000-0000-4000-8000-0000000000e2';
const M = '00000000-0000-4000-8000-0000000000d1';
const P1 = '00000000-0000-4000-8000-0000000000f1';
const P2 = '00000000-0000-4000-8000-0000000000f2';

describe('environment decider (one stream per company)', () => {
  const schema = { schema: environmentEventSchema };
  const settings = { label: 'live', routing: 'path', slugPrefix: '', hostLabel: '', htmlLang: 'en', requiresAuth: false };
  const live: EnvironmentEvent = { type: 'EnvironmentCreated', version: 1, data: { key: 'live', envUuid: E1, ...settings, default: true } };
  const stage: EnvironmentEvent = { type: 'EnvironmentCreated', version: 1, data: { key: 'stage', envUuid: E2, ...settings, label: 'stage', default: false } };

  it('the first environment is the default; a later default: true takes it over in the same append', () => {
    given(environmentDecider, [], schema).when({ type: 'CreateEnvironment', envUuid: E1, key: 'live', input: {} }).then([live]);
    given(environmentDecider, [live], schema).when({ type: 'CreateEnvironment', envUuid: E2, key: 'stage', input: {} }).then([stage]);
    given(environmentDecider, [live], schema).when({ type: 'CreateEnvironment', envUuid: E2, key: 'stage', input: { default: true } }).then([
      { type: 'EnvironmentUpdated', version: 1, data: { key: 'live', changes: { default: false } } },
      { ...stage, data: { ...stage.data, default: true } } as EnvironmentEvent,
    ]);
  });

  it('a key is unique, well formed and never changes', () => {
    given(environmentDecider, [live], schema).when({ type: 'CreateEnvironment', envUuid: E2, key: 'live', input: {} }).thenFails('CONFLICT', 'live');
    given(environmentDecider, [], schema).when({ type: 'CreateEnvironment', envUuid: E1, key: 'Bad Key', input: {} }).thenFails('VALIDATION_FAILED', 'is not a key');
    given(environmentDecider, [live], schema).when({ type: 'UpdateEnvironment', key: 'live', input: { key: 'other' } }).thenFails('VALIDATION_FAILED', 'cannot change');
    given(environmentDecider, [live], schema).when({ type: 'UpdateEnvironment', key: 'gone', input: {} }).thenFails('NOT_FOUND');
  });

  it('an update emits only what changed, and the default cannot be unset, only handed over', () => {
    given(environmentDecider, [live], schema).when({ type: 'UpdateEnvironment', key: 'live', input: { label: 'live', htmlLang: 'de' } }).then([{ type: 'EnvironmentUpdated', version: 1, data: { key: 'live', changes: { htmlLang: 'de' } } }]);
    given(environmentDecider, [live], schema).when({ type: 'UpdateEnvironment', key: 'live', input: { default: false } }).thenFails('VALIDATION_FAILED', 'exactly one default');
    given(environmentDecider, [live, stage], schema).when({ type: 'UpdateEnvironment', key: 'stage', input: { default: true } }).then([
      { type: 'EnvironmentUpdated', version: 1, data: { key: 'live', changes: { default: false } } },
      { type: 'EnvironmentUpdated', version: 1, data: { key: 'stage', changes: { default: true } } },
    ]);
  });

  it('deletes only an empty environment; deleting the default hands it to the oldest other', () => {
    given(environmentDecider, [live, stage], schema).when({ type: 'DeleteEnvironment', key: 'live', pageCount: 2 }).thenFails('CONFLICT', '2 pages');
    given(environmentDecider, [live, stage], schema).when({ type: 'DeleteEnvironment', key: 'live', pageCount: 0 }).then([
      { type: 'EnvironmentDeleted', version: 1, data: { key: 'live' } },
      { type: 'EnvironmentUpdated', version: 1, data: { key: 'stage', changes: { default: true } } },
    ]);
    given(environmentDecider, [live, stage], schema).when({ type: 'DeleteEnvironment', key: 'stage', pageCount: 0 }).then([{ type: 'EnvironmentDeleted', version: 1, data: { key: 'stage' } }]);
  });
});

describe('module decider', () => {
  const schema = { schema: moduleEventSchema };
  const settings = { name: 'hero', label: 'Hero', description: '', fields: [{ name: 'heading', type: 'text' as const, required: false }] };
  const created: ModuleEvent = { type: 'ModuleCreated', version: 1, data: { ...settings, moduleUuid: M, ownerUuid: null } };

  it('creates once; field names are unique and only select fields have options, every problem at once', () => {
    given(moduleDecider, [], schema).when({ type: 'CreateModule', moduleUuid: M, ownerUuid: null, settings }).then([created]);
    given(moduleDecider, [created], schema).when({ type: 'CreateModule', moduleUuid: M, ownerUuid: null, settings }).thenFails('CONFLICT');
    const fields = [{ name: 'a', type: 'text' as const, required: false, options: ['x'] }, { name: 'a', type: 'select' as const, required: false }];
    const e = given(moduleDecider, [], schema).when({ type: 'CreateModule', moduleUuid: M, ownerUuid: null, settings: { ...settings, fields } }).thenFails('VALIDATION_FAILED');
    expect(e.details.map((d) => d.field)).toEqual(['body.fields.0.options', 'body.fields.1.name', 'body.fields.1.options']);
  });

  it('an update emits only what changed and is checked whole; a deleted module is gone', () => {
    given(moduleDecider, [created], schema).when({ type: 'UpdateModule', changes: { label: 'Hero' } }).then([]);
    given(moduleDecider, [created], schema).when({ type: 'UpdateModule', changes: { label: 'Big hero', description: '' } }).then([{ type: 'ModuleUpdated', version: 1, data: { changes: { label: 'Big hero' } } }]);
    given(moduleDecider, [created], schema).when({ type: 'UpdateModule', changes: { fields: [{ name: 's', type: 'select', required: false }] } }).thenFails('VALIDATION_FAILED', 'needs options');
    const deleted: ModuleEvent = { type: 'ModuleDeleted', version: 1, data: { moduleUuid: M } };
    given(moduleDecider, [created], schema).when({ type: 'DeleteModule' }).then([deleted]);
    given(moduleDecider, [created, deleted], schema).when({ type: 'DeleteModule' }).thenFails('NOT_FOUND');
    given(moduleDecider, [created, deleted], schema).when({ type: 'UpdateModule', changes: { label: 'x' } }).thenFails('NOT_FOUND');
  });
});

describe('web menu decider', () => {
  const schema = { schema: webMenuEventSchema };
  const settings = { name: 'main', label: 'Main', environment: 'live', items: [{ label: 'Home', url: '/' }] };
  const created: WebMenuEvent = { type: 'WebMenuCreated', version: 1, data: { menuUuid: M, ...settings } };
  const deleted: WebMenuEvent = { type: 'WebMenuDeleted', version: 1, data: { menuUuid: M } };

  it('creates once; an item is a link or a page, not both; a menu has at most MAX_MENU_ITEMS items', () => {
    given(webMenuDecider, [], schema).when({ type: 'CreateWebMenu', menuUuid: M, settings }).then([created]);
    given(webMenuDecider, [created], schema).when({ type: 'CreateWebMenu', menuUuid: M, settings }).thenFails('CONFLICT');
    const both = [{ label: 'x', url: '/x', pageUuid: P1 }];
    given(webMenuDecider, [], schema).when({ type: 'CreateWebMenu', menuUuid: M, settings: { ...settings, items: both } }).thenFails('VALIDATION_FAILED', 'not both');
    const many = Array.from({ length: MAX_MENU_ITEMS + 1 }, (_, i) => ({ label: `i${i}`, url: '/' }));
    given(webMenuDecider, [created], schema).when({ type: 'UpdateWebMenu', changes: { items: many } }).thenFails('VALIDATION_FAILED', `${MAX_MENU_ITEMS + 1} items`);
  });

  it('an update emits only what changed; a deleted menu is restored before it changes, and restored once', () => {
    given(webMenuDecider, [created], schema).when({ type: 'UpdateWebMenu', changes: { label: 'Main', name: 'top' } }).then([{ type: 'WebMenuUpdated', version: 1, data: { changes: { name: 'top' } } }]);
    given(webMenuDecider, [created], schema).when({ type: 'DeleteWebMenu' }).then([deleted]);
    given(webMenuDecider, [created, deleted], schema).when({ type: 'UpdateWebMenu', changes: { label: 'x' } }).thenFails('STATE_NOT_ALLOWED', 'Restore the web menu first');
    given(webMenuDecider, [created, deleted], schema).when({ type: 'DeleteWebMenu' }).thenFails('STATE_NOT_ALLOWED', 'already deleted');
    given(webMenuDecider, [created, deleted], schema).when({ type: 'RestoreWebMenu' }).then([{ type: 'WebMenuRestored', version: 1, data: { menuUuid: M } }]);
    given(webMenuDecider, [created], schema).when({ type: 'RestoreWebMenu' }).thenFails('STATE_NOT_ALLOWED', 'not deleted');
    given(webMenuDecider, [], schema).when({ type: 'DeleteWebMenu' }).thenFails('NOT_FOUND');
  });
});

describe('translation decider (one stream per pair of pages)', () => {
  const schema = { schema: pageTranslationEventSchema };
  const data = { pageUuid: P1, otherUuid: P2 };
  const linked: PageTranslationEvent = { type: 'PageTranslationLinked', version: 1, data };
  it('links once, unlinks what is linked, and changes nothing otherwise', () => {
    given(translationDecider, [], schema).when({ type: 'Link', ...data }).then([linked]);
    given(translationDecider, [linked], schema).when({ type: 'Link', ...data }).then([]);
    given(translationDecider, [], schema).when({ type: 'Unlink', ...data }).then([]);
    given(translationDecider, [linked], schema).when({ type: 'Unlink', ...data }).then([{ type: 'PageTranslationUnlinked', version: 1, data }]);
  });
});
