import { z } from 'zod';
import { settingsSchemaSchema } from './app.settings-schema.js';
import { moduleSettingsSchema } from '../module/module.schemas.js';

const uuid = z.string().uuid();
export const appVisibilities = ['PUBLIC', 'PRIVATE'] as const;
export const reviewStates = ['DRAFT', 'SUBMITTED', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED'] as const;
export type ReviewState = (typeof reviewStates)[number];
export const reviewOutcomes = ['APPROVE', 'REJECT', 'REQUEST_CHANGES'] as const;
export type ReviewOutcome = (typeof reviewOutcomes)[number];

export const appBarSchema = z.object({
  uuid,
  label: z.string().min(1).max(200),
  location: z.enum(['RECORD', 'RECORD_LIST', 'DASHBOARD']),
  type: z.enum(['IFRAME', 'BUTTON']),
  url: z.string().url().max(2000).nullable().default(null),
});
export type AppBar = z.infer<typeof appBarSchema>;

export const pricingSchema = z.object({
  model: z.enum(['FREE', 'ONE_TIME', 'SUBSCRIPTION']).default('FREE'),
  amount: z.number().min(0).max(1_000_000).default(0),
  currency: z.string().regex(/^[A-Z]{3}$/).default('EUR'),
  description: z.string().max(2000).default(''),
});

/** An OAuth 2 provider the app connects installations to (the client secret is an installation secret, never here). */
export const oauthProviderSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/),
  issuer: z.string().url(),
  authorizationEndpoint: z.string().url(),
  tokenEndpoint: z.string().url(),
  revocationEndpoint: z.string().url().nullable().default(null),
  clientId: z.string().min(1).max(500),
  scopes: z.array(z.string().min(1).max(200)).max(50).default([]),
});
export type OAuthProvider = z.infer<typeof oauthProviderSchema>;

/** The creator object of an app (GET and PUT /apps/public/{uuid}), as the events carry it. */
export const appProfileSchema = z.object({
  label: z.string(),
  description: z.string(),
  details: z.string(),
  category: z.string(),
  pricing: pricingSchema,
  settingsSchema: settingsSchemaSchema,
  appBars: z.array(appBarSchema),
  webhookUrl: z.string().nullable(),
  oauthProviders: z.array(oauthProviderSchema).default([]),
  /** The scopes the app asks for; an installation grants them at install (issue 35). */
  scopes: z.array(z.string()).default([]),
});
export type AppProfile = z.infer<typeof appProfileSchema>;

export const appCreated = z.object({
  type: z.literal('AppCreated'),
  version: z.literal(1),
  data: z.object({ appUuid: uuid, visibility: z.enum(appVisibilities), label: z.string(), description: z.string() }),
});
export const appUpdated = z.object({ type: z.literal('AppUpdated'), version: z.literal(1), data: z.object({ profile: appProfileSchema }) });
export const appSubmitted = z.object({ type: z.literal('AppSubmitted'), version: z.literal(1), data: z.object({ note: z.string() }) });
export const appReviewed = z.object({
  type: z.literal('AppReviewed'),
  version: z.literal(1),
  data: z.object({ outcome: z.enum(reviewOutcomes), state: z.enum(reviewStates), feedback: z.string(), reviewerNotes: z.string(), reviewerUuid: z.string().nullable() }),
});

/** The app's CMS module catalog replaced (spec 4.12): `modules` is the whole live catalog, `retired` the names it drops (kept, never deleted). */
export const appCmsModulesReplaced = z.object({
  type: z.literal('AppCmsModulesReplaced'),
  version: z.literal(1),
  data: z.object({ modules: z.array(moduleSettingsSchema), retired: z.array(z.string()) }),
});

/** A staged CMS module package kept in the files storage (spec 4.12): where, its hash, size and files; the catalog replace follows. */
export const appCmsPackagePublished = z.object({
  type: z.literal('AppCmsPackagePublished'),
  version: z.literal(1),
  data: z.object({ key: z.string(), sha256: z.string(), size: z.number().int(), files: z.number().int(), gzipped: z.boolean() }),
});

/** The runtimes a version 2 app may run on (the shared container runtime, spec 4.17 migrate-v2). */
export const appRuntimes = ['node20', 'node22'] as const;
/** runtimeStatus (docs/apps.md): NOT_BUILT (version 1, never migrated), BUILDING, READY, FAILED. */
export const runtimeStatuses = ['NOT_BUILT', 'BUILDING', 'READY', 'FAILED'] as const;
export type RuntimeStatus = (typeof runtimeStatuses)[number];

/** migrate-v2 asked: platformVersion 2, a rebuild scheduled (`buildId`); version 1 keeps serving until READY. */
export const appMigrationToV2Requested = z.object({ type: z.literal('AppMigrationToV2Requested'), version: z.literal(1), data: z.object({ runtime: z.enum(appRuntimes), buildId: uuid }) });
/** The rebuild passed: runtimeStatus READY, version 2 serves. */
export const appRuntimeBuilt = z.object({ type: z.literal('AppRuntimeBuilt'), version: z.literal(1), data: z.object({ buildId: uuid, runtime: z.enum(appRuntimes) }) });
/** The rebuild failed: back on platformVersion 1, runtimeStatus FAILED, with the reasons. */
export const appRuntimeBuildFailed = z.object({ type: z.literal('AppRuntimeBuildFailed'), version: z.literal(1), data: z.object({ buildId: uuid, reasons: z.array(z.string()) }) });

export const appEventSchema = z.discriminatedUnion('type', [
  appCreated,
  appUpdated,
  appSubmitted,
  appReviewed,
  appCmsModulesReplaced,
  appCmsPackagePublished,
  appMigrationToV2Requested,
  appRuntimeBuilt,
  appRuntimeBuildFailed,
]);
export type AppEvent = z.infer<typeof appEventSchema>;
export const appEventTypes = appEventSchema.options.map((o) => o.shape.type.value);

export const APP_STREAM_PREFIX = 'app-';
export const appStream = (appUuid: string) => `${APP_STREAM_PREFIX}${appUuid}`;
/** The uuid an app stream is named by (the inverse of `appStream`). */
export const appUuidOfStream = (streamId: string) => streamId.slice(APP_STREAM_PREFIX.length);
