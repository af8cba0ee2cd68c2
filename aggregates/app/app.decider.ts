import { DomainError, invalid, notFound } from '../kernel/errors.js';
import type { ModuleSettings } from '../module/module.schemas.js';
import type { Decider } from '../kernel/decider.js';
import { sameJson } from '../kernel/same-json.js';
import type { AppEvent, AppProfile, ReviewOutcome, ReviewState, RuntimeStatus } from './app.events.js';
import { appRuntimes } from './app.events.js';
import { checkSettingsSchema } from './app.settings-schema.js';

export type AppCommand =
  | { type: 'CreateApp'; appUuid: string; visibility: 'PUBLIC' | 'PRIVATE'; label: string; description: string }
  | { type: 'UpdateApp'; profile: AppProfile }
  | { type: 'SubmitApp'; note: string }
  | { type: 'ReviewApp'; outcome: ReviewOutcome; feedback: string; reviewerNotes: string; reviewerUuid: string | null }
  | { type: 'ReplaceCmsModules'; modules: ModuleSettings[] }
  | { type: 'PublishCmsPackage'; package: { key: string; sha256: string; size: number; files: number; gzipped: boolean }; modules: ModuleSettings[] }
  | { type: 'MigrateToV2'; runtime: string; buildId: string }
  /** The rebuild's outcome, from the reactor: `reasons` empty is a pass. A build that is not the current one decides nothing. */
  | { type: 'CompleteRuntimeBuild'; buildId: string; reasons: string[] };

export interface AppState {
  exists: boolean;
  appUuid: string;
  visibility: 'PUBLIC' | 'PRIVATE';
  review: ReviewState;
  profile: AppProfile | null;
  /** The live CMS module catalog (retired modules are not in it). */
  cmsModules: ModuleSettings[];
  platformVersion: 1 | 2;
  runtimeStatus: RuntimeStatus;
  runtime: string | null;
  buildId: string | null;
}

/** Where each review outcome leads (docs/apps.md): only a SUBMITTED app is reviewed. */
export const outcomeState: Record<ReviewOutcome, ReviewState> = { APPROVE: 'APPROVED', REJECT: 'REJECTED', REQUEST_CHANGES: 'CHANGES_REQUESTED' };
/** The states an app may be submitted from. */
export const submittable: readonly ReviewState[] = ['DRAFT', 'CHANGES_REQUESTED'];

const notAllowed = (what: string, state: ReviewState, suggestion: string) =>
  new DomainError('STATE_NOT_ALLOWED', `${what} is not allowed in review state ${state}`, [{ message: `The app is ${state}; ${what} is not allowed from there`, type: 'GENERAL', correctionSuggestion: suggestion }]);

function live(state: AppState) {
  if (!state.exists) throw notFound('App', state.appUuid || 'requested');
}

export const appDecider: Decider<AppState, AppCommand, AppEvent> = {
  initialState: () => ({ exists: false, appUuid: '', visibility: 'PUBLIC', review: 'DRAFT', profile: null, cmsModules: [], platformVersion: 1, runtimeStatus: 'NOT_BUILT', runtime: null, buildId: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateApp':
        if (state.exists) throw new DomainError('CONFLICT', 'app already exists', [{ message: 'An app with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        return [{ type: 'AppCreated', version: 1, data: { appUuid: command.appUuid, visibility: command.visibility, label: command.label.trim(), description: command.description.trim() } }];
      case 'UpdateApp':
        live(state);
        if (state.review === 'SUBMITTED') throw notAllowed('changing the app', state.review, 'Wait for the review, or ask the reviewer to request changes');
        if (state.review === 'REJECTED') throw notAllowed('changing the app', state.review, 'A rejected app stays as it was reviewed; create a new app');
        checkSettingsSchema(command.profile.settingsSchema);
        return state.profile && sameJson(state.profile, command.profile) ? [] : [{ type: 'AppUpdated', version: 1, data: { profile: command.profile } }];
      case 'SubmitApp':
        live(state);
        if (state.visibility === 'PRIVATE') throw notAllowed('submitting a private app', state.review, 'Private apps are not reviewed: they are installed for their company only');
        if (!submittable.includes(state.review)) throw notAllowed('submitting', state.review, 'Submit a DRAFT app, or one whose review asked for changes');
        return [{ type: 'AppSubmitted', version: 1, data: { note: command.note } }];
      case 'ReplaceCmsModules':
        live(state);
        return replaceCatalog(state, command.modules);
      case 'PublishCmsPackage': {
        live(state);
        const replaced = replaceCatalog(state, command.modules);
        return [{ type: 'AppCmsPackagePublished', version: 1, data: command.package }, ...replaced];
      }
      case 'MigrateToV2':
        live(state);
        if (!(appRuntimes as readonly string[]).includes(command.runtime)) throw invalid('runtime', `${command.runtime} is not a runtime of version 2`, `Name one runtime: ${appRuntimes.join(' or ')}`);
        if (state.runtimeStatus === 'BUILDING') throw notAllowedRuntime('a rebuild is running', 'Wait for runtimeStatus READY or FAILED');
        if (state.platformVersion === 2 && state.runtimeStatus === 'READY') throw notAllowedRuntime('the app is on version 2 already', 'Nothing to migrate');
        return [{ type: 'AppMigrationToV2Requested', version: 1, data: { runtime: command.runtime as (typeof appRuntimes)[number], buildId: command.buildId } }];
      case 'CompleteRuntimeBuild':
        if (!state.exists || state.runtimeStatus !== 'BUILDING' || state.buildId !== command.buildId) return [];
        return command.reasons.length
          ? [{ type: 'AppRuntimeBuildFailed', version: 1, data: { buildId: command.buildId, reasons: command.reasons } }]
          : [{ type: 'AppRuntimeBuilt', version: 1, data: { buildId: command.buildId, runtime: state.runtime as (typeof appRuntimes)[number] } }];
      case 'ReviewApp':
        live(state);
        if (state.review !== 'SUBMITTED') throw notAllowed('reviewing', state.review, 'Only a SUBMITTED app is reviewed; the creator submits it first');
        return [{ type: 'AppReviewed', version: 1, data: { outcome: command.outcome, state: outcomeState[command.outcome], feedback: command.feedback, reviewerNotes: command.reviewerNotes, reviewerUuid: command.reviewerUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'AppCreated': {
        const d = event.data;
        return { ...appDecider.initialState(), exists: true, appUuid: d.appUuid, visibility: d.visibility, review: initialReview(d.visibility), profile: initialProfile(d.label, d.description) };
      }
      case 'AppUpdated':
        return { ...state, profile: event.data.profile };
      case 'AppSubmitted':
        return { ...state, review: 'SUBMITTED' };
      case 'AppReviewed':
        return { ...state, review: event.data.state };
      case 'AppCmsModulesReplaced':
        return { ...state, cmsModules: event.data.modules };
      case 'AppCmsPackagePublished':
        return state;
      case 'AppMigrationToV2Requested':
        return { ...state, platformVersion: 2, runtimeStatus: 'BUILDING', runtime: event.data.runtime, buildId: event.data.buildId };
      case 'AppRuntimeBuilt':
        return { ...state, runtimeStatus: 'READY' };
      case 'AppRuntimeBuildFailed':
        return { ...state, platformVersion: 1, runtimeStatus: 'FAILED' };
    }
  },
};

function replaceCatalog(state: AppState, modules: ModuleSettings[]): AppEvent[] {
  const names = modules.map((m) => m.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw invalid('modules', `the module name ${twice} is used twice`, 'Give every module of the catalog a distinct name');
  const retired = state.cmsModules.map((m) => m.name).filter((n) => !names.includes(n));
  return sameJson(state.cmsModules, modules) ? [] : [{ type: 'AppCmsModulesReplaced', version: 1, data: { modules, retired } }];
}

const notAllowedRuntime = (what: string, suggestion: string) =>
  new DomainError('STATE_NOT_ALLOWED', `migrate-v2 is not allowed: ${what}`, [{ message: `migrate-v2 is not allowed: ${what}`, type: 'GENERAL', correctionSuggestion: suggestion }]);

/** A private app is never reviewed: it is usable by its company at once. */
export const initialReview = (visibility: 'PUBLIC' | 'PRIVATE'): ReviewState => (visibility === 'PRIVATE' ? 'APPROVED' : 'DRAFT');

/** The creator object an app starts with (shared by the decider's fold and the projection). */
export const initialProfile = (label: string, description: string): AppProfile => ({
  label, description, details: '', category: 'OTHER', pricing: { model: 'FREE', amount: 0, currency: 'EUR', description: '' }, settingsSchema: [], appBars: [], webhookUrl: null, oauthProviders: [], scopes: [],
});
