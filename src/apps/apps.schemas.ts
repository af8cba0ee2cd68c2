import { z } from 'zod';
import { appVisibilities, oauthProviderSchema, pricingSchema, reviewOutcomes, reviewStates } from '../../aggregates/app/app.events.js';
import { settingFieldSchema, settingsSchemaSchema } from '../../aggregates/app/app.settings-schema.js';
import type { AppRow, InstallationRow } from '../../read-models/apps.queries.js';
import type { IssuedCredentials } from './credentials.js';
import { scopeNames } from '../auth/scopes.js';

const appScopes = z.array(z.enum(scopeNames as [string, ...string[]])).max(50).describe('Scopes the app asks for: what its access tokens may do in a company that installs it (granted at install)');

/** The marketplace categories (GET /apps/categories). */
export const appCategories = [
  { key: 'ANALYTICS', label: 'Analytics' },
  { key: 'AUTOMATION', label: 'Automation' },
  { key: 'COMMUNICATION', label: 'Communication' },
  { key: 'CRM', label: 'CRM' },
  { key: 'FINANCE', label: 'Finance' },
  { key: 'MARKETING', label: 'Marketing' },
  { key: 'PRODUCTIVITY', label: 'Productivity' },
  { key: 'OTHER', label: 'Other' },
] as const;
const categoryKeys = appCategories.map((c) => c.key) as [string, ...string[]];

const label = z.string().trim().min(1).max(200);
export const createAppBody = z.object({ label, description: z.string().max(2000).default('') });

const appBarInput = z.object({
  uuid: z.uuid().optional(),
  label,
  location: z.enum(['RECORD', 'RECORD_LIST', 'DASHBOARD']),
  type: z.enum(['IFRAME', 'BUTTON']),
  url: z.url({ protocol: /^https?$/ }).max(2000).nullable().default(null),
});

/** The whole creator object, as GET /apps/public/{uuid} returns it (PUT takes it back). */
export const profileBody = z
  .object({
    label,
    description: z.string().max(2000).default(''),
    details: z.string().max(50_000).default(''),
    category: z.enum(categoryKeys).default('OTHER'),
    pricing: pricingSchema.default({ model: 'FREE', amount: 0, currency: 'EUR', description: '' }),
    settingsSchema: settingsSchemaSchema.default([]),
    appBars: z.array(appBarInput).max(50).default([]),
    webhookUrl: z.url({ protocol: /^https?$/ }).max(2000).nullable().default(null),
    oauthProviders: z.array(oauthProviderSchema).max(10).default([]),
    scopes: appScopes.default([]),
  })
  .meta({ id: 'AppCreatorBody' });

export const reviewBody = z.object({ outcome: z.enum(reviewOutcomes), feedback: z.string().trim().min(1).max(10_000), reviewerNotes: z.string().max(10_000).default('') });

const appBarSchema = z.object({ uuid: z.string(), label: z.string(), location: z.string(), type: z.string(), url: z.string().nullable() });

export const appSummarySchema = z
  .object({ uuid: z.string(), label: z.string(), description: z.string(), category: z.string(), visibility: z.enum(appVisibilities), pricing: pricingSchema })
  .meta({ id: 'AppSummary' });

export const appDetailsSchema = appSummarySchema
  .extend({ details: z.string(), settingsSchema: z.array(settingFieldSchema), appBars: z.array(appBarSchema), scopes: z.array(z.string()), reviewState: z.enum(reviewStates), createdAt: z.number().int(), updatedAt: z.number().int() })
  .meta({ id: 'App' });

export const creatorViewSchema = appDetailsSchema
  .extend({ webhookUrl: z.string().nullable(), oauthProviders: z.array(oauthProviderSchema), feedback: z.string(), reviewerNotes: z.string(), revision: z.number().int(), platformVersion: z.number().int(), runtimeStatus: z.string(), runtimeError: z.string().nullable() })
  .meta({ id: 'AppCreatorView' });

export const installationSchema = z
  .object({
    appUuid: z.string(),
    installed: z.boolean(),
    settings: z.record(z.string(), z.unknown()),
    clientId: z.string(),
    previousClientIdValidUntil: z.number().int().nullable(),
    grantedScopes: z.array(z.string()),
    installedAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'AppInstallation' });

export const credentialsSchema = z
  .object({ signingSecret: z.string(), clientId: z.string(), clientSecret: z.string() })
  .describe('Shown once: the platform keeps the signing secret sealed and the client secret hashed')
  .meta({ id: 'AppCredentials' });

export const toSummary = (r: AppRow): z.infer<typeof appSummarySchema> => ({ uuid: r.app_uuid, label: r.label, description: r.description, category: r.category, visibility: r.visibility, pricing: r.pricing });
export const toDetails = (r: AppRow): z.infer<typeof appDetailsSchema> => ({
  ...toSummary(r),
  details: r.details,
  settingsSchema: r.settings_schema,
  appBars: r.app_bars,
  scopes: r.scopes ?? [],
  reviewState: r.review_state as z.infer<typeof appDetailsSchema>['reviewState'],
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});
export const toCreatorView = (r: AppRow): z.infer<typeof creatorViewSchema> => ({
  ...toDetails(r),
  webhookUrl: r.webhook_url,
  oauthProviders: r.oauth_providers ?? [],
  feedback: r.feedback,
  reviewerNotes: r.reviewer_notes,
  revision: r.revision,
  platformVersion: Number(r.platform_version ?? 1),
  runtimeStatus: r.runtime_status ?? 'NOT_BUILT',
  runtimeError: r.runtime_error ?? null,
});
export const toInstallation = (r: InstallationRow): z.infer<typeof installationSchema> => ({
  appUuid: r.app_uuid,
  installed: r.installed,
  settings: r.settings,
  clientId: r.credentials.clientId,
  previousClientIdValidUntil: r.previous_valid_until === null ? null : Number(r.previous_valid_until),
  grantedScopes: r.granted_scopes ?? [],
  installedAt: Number(r.installed_at),
  updatedAt: Number(r.updated_at),
});
export const withCredentials = (r: InstallationRow, c: IssuedCredentials) => ({ installation: toInstallation(r), credentials: c });
