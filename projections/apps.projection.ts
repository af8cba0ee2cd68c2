import type { StoredEvent } from '../aggregates/kernel/events.js';
import { initialProfile, initialReview } from '../aggregates/app/app.decider.js';
import { appEventTypes, appUuidOfStream, type AppEvent } from '../aggregates/app/app.events.js';
import { appUuidOfInstallationStream, installationEventTypes, type InstallationEvent } from '../aggregates/app/installation.events.js';
import type { Projection } from './projection.js';
import type { Sql } from '../ports/sql.js';

/** Advances the app row's revision; false when this event was applied already (idempotency). */
async function advanceApp(tx: Sql, stored: StoredEvent, set = '', params: unknown[] = []) {
  const rows = await tx.query(
    `update rm_apps set updated_at = $4, updated_by = $5, revision = $3${set} where tenant = $1 and app_uuid = $2 and revision < $3 returning app_uuid`,
    [stored.tenant, appUuidOfStream(stored.streamId), stored.revision, stored.metadata.occurredAt, stored.metadata.userUuid, ...params],
  );
  return rows.length === 1;
}

async function applyApp(event: StoredEvent<AppEvent> & AppEvent, tx: Sql) {
  const at = event.metadata.occurredAt;
  switch (event.type) {
    case 'AppCreated': {
      const d = event.data;
      const p = initialProfile(d.label, d.description);
      await tx.query(
        `insert into rm_apps (tenant, app_uuid, visibility, label, description, details, category, pricing, settings_schema, app_bars, webhook_url, review_state, feedback, reviewer_notes, created_at, updated_at, created_by, updated_by, revision)
         values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, '[]'::jsonb, '[]'::jsonb, null, $9, '', '', $10, $10, $11, $11, $12) on conflict do nothing`,
        [event.tenant, d.appUuid, d.visibility, p.label, p.description, p.details, p.category, JSON.stringify(p.pricing), initialReview(d.visibility), at, event.metadata.userUuid, event.revision],
      );
      return;
    }
    case 'AppUpdated': {
      const p = event.data.profile;
      await advanceApp(tx, event, ', label = $6, description = $7, details = $8, category = $9, pricing = $10::jsonb, settings_schema = $11::jsonb, app_bars = $12::jsonb, webhook_url = $13, oauth_providers = $14::jsonb, scopes = $15::jsonb', [
        p.label, p.description, p.details, p.category, JSON.stringify(p.pricing), JSON.stringify(p.settingsSchema), JSON.stringify(p.appBars), p.webhookUrl, JSON.stringify(p.oauthProviders ?? []), JSON.stringify(p.scopes ?? []),
      ]);
      return;
    }
    case 'AppSubmitted':
      await advanceApp(tx, event, ", review_state = 'SUBMITTED'");
      return;
    case 'AppReviewed':
      await advanceApp(tx, event, ', review_state = $6, feedback = $7, reviewer_notes = $8', [event.data.state, event.data.feedback, event.data.reviewerNotes]);
      return;
    case 'AppCmsModulesReplaced': {
      if (!(await advanceApp(tx, event))) return;
      const app = appUuidOfStream(event.streamId);
      for (const m of event.data.modules) {
        await tx.query(
          `insert into rm_app_cms_modules (app_uuid, name, definition, retired, updated_at) values ($1, $2, $3::jsonb, false, $4)
           on conflict (app_uuid, name) do update set definition = excluded.definition, retired = false, updated_at = excluded.updated_at`,
          [app, m.name, JSON.stringify(m), at],
        );
      }
      // Retired, never deleted: pages that use a retired module keep their definition.
      await tx.query('update rm_app_cms_modules set retired = true, updated_at = $3 where app_uuid = $1 and name = any($2::text[])', [app, event.data.retired, at]);
      return;
    }
    case 'AppCmsPackagePublished':
      await advanceApp(tx, event, ', cms_package = $6::jsonb', [JSON.stringify({ ...event.data, uploadedAt: at })]);
      return;
    case 'AppMigrationToV2Requested':
      await advanceApp(tx, event, ", platform_version = 2, runtime_status = 'BUILDING', runtime_error = null");
      return;
    case 'AppRuntimeBuilt':
      await advanceApp(tx, event, ", runtime_status = 'READY', runtime_error = null");
      return;
    case 'AppRuntimeBuildFailed':
      await advanceApp(tx, event, ", platform_version = 1, runtime_status = 'FAILED', runtime_error = $6", [event.data.reasons.join('; ')]);
      return;
  }
}

/** Advances the installation row's revision; false when this event was applied already. */
async function advanceInstallation(tx: Sql, stored: StoredEvent, set = '', params: unknown[] = []) {
  const rows = await tx.query(
    `update rm_app_installations set updated_at = $4, revision = $3${set} where tenant = $1 and app_uuid = $2 and revision < $3 returning app_uuid`,
    [stored.tenant, appUuidOfInstallationStream(stored.streamId), stored.revision, stored.metadata.occurredAt, ...params],
  );
  return rows.length === 1;
}

async function applyInstallation(event: StoredEvent<InstallationEvent> & InstallationEvent, tx: Sql) {
  const { tenant } = event;
  const app = appUuidOfInstallationStream(event.streamId);
  const at = event.metadata.occurredAt;
  switch (event.type) {
    case 'AppInstalled': {
      const d = event.data;
      await tx.query(
        `insert into rm_app_installations (tenant, app_uuid, app_tenant, installed, settings, state, credentials, installed_at, updated_at, revision)
         values ($1, $2, $3, true, $4::jsonb, '{}'::jsonb, $5::jsonb, $6, $6, $7)
         on conflict (tenant, app_uuid) do update set installed = true, settings = rm_app_installations.settings || excluded.settings,
           credentials = excluded.credentials, previous_credentials = null, previous_valid_until = null,
           installed_at = excluded.installed_at, updated_at = excluded.updated_at, revision = excluded.revision
         where rm_app_installations.revision < excluded.revision`,
        [tenant, d.appUuid, d.appTenant, JSON.stringify(d.settings), JSON.stringify(d.credentials), at, event.revision],
      );
      return;
    }
    case 'AppUninstalled':
      if (!(await advanceInstallation(tx, event, ", installed = false, granted_scopes = '[]'::jsonb"))) return;
      if (!event.data.keepData) {
        await tx.query(`update rm_app_installations set settings = '{}'::jsonb, state = '{}'::jsonb where tenant = $1 and app_uuid = $2`, [tenant, app]);
        for (const table of ['rm_app_user_settings', 'rm_app_secrets', 'rm_app_connections']) await tx.query(`delete from ${table} where tenant = $1 and app_uuid = $2`, [tenant, app]);
      }
      return;
    case 'AppCredentialsRotated':
      await advanceInstallation(tx, event, ', previous_credentials = credentials, credentials = $5::jsonb, previous_valid_until = $6', [JSON.stringify(event.data.credentials), event.data.previousValidUntil]);
      return;
    case 'InstallationStateChanged': {
      const keys = event.data.removed;
      await advanceInstallation(tx, event, ' , state = (state || $5::jsonb) - $6::text[]', [JSON.stringify(event.data.set), keys]);
      return;
    }
    case 'InstallationSettingsChanged': {
      const changes = event.data.changes;
      const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== null));
      const removed = Object.keys(changes).filter((k) => changes[k] === null);
      await advanceInstallation(tx, event, ', settings = (settings || $5::jsonb) - $6::text[]', [JSON.stringify(set), removed]);
      return;
    }
    case 'InstallationUserSettingsChanged': {
      if (!(await advanceInstallation(tx, event))) return;
      const changes = event.data.changes;
      const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== null));
      const removed = Object.keys(changes).filter((k) => changes[k] === null);
      await tx.query(
        `insert into rm_app_user_settings (tenant, app_uuid, user_uuid, settings) values ($1, $2, $3, $4::jsonb - $5::text[])
         on conflict (tenant, app_uuid, user_uuid) do update set settings = (rm_app_user_settings.settings || $4::jsonb) - $5::text[]`,
        [tenant, app, event.data.userUuid, JSON.stringify(set), removed],
      );
      return;
    }
    case 'InstallationSecretSet':
      if (!(await advanceInstallation(tx, event))) return;
      await tx.query(
        `insert into rm_app_secrets (tenant, app_uuid, name, ciphertext, updated_at) values ($1, $2, $3, $4, $5)
         on conflict (tenant, app_uuid, name) do update set ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
        [tenant, app, event.data.name, event.data.ciphertext, at],
      );
      return;
    case 'InstallationSecretDeleted':
      if (await advanceInstallation(tx, event)) await tx.query('delete from rm_app_secrets where tenant = $1 and app_uuid = $2 and name = $3', [tenant, app, event.data.name]);
      return;
    case 'InstallationOAuthConnected': {
      if (!(await advanceInstallation(tx, event))) return;
      const d = event.data;
      await tx.query(
        `insert into rm_app_connections (tenant, app_uuid, connection_id, provider, scope, expires_at, tokens, connected_at) values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing`,
        [tenant, app, d.connectionId, d.provider, d.scope, d.expiresAt, d.tokens, at],
      );
      return;
    }
    case 'InstallationScopesGranted':
      await advanceInstallation(tx, event, ', granted_scopes = $5::jsonb', [JSON.stringify(event.data.scopes)]);
      return;
    case 'InstallationOAuthRevoked':
      if (await advanceInstallation(tx, event)) await tx.query('delete from rm_app_connections where tenant = $1 and app_uuid = $2 and connection_id = $3', [tenant, app, event.data.connectionId]);
      return;
  }
}

const appTypes = new Set<string>(appEventTypes);

/** `rm_apps` from the app- streams; the installation tables from the installation- streams. */
export const appsProjection: Projection = {
  name: 'apps',
  tables: ['rm_apps', 'rm_app_cms_modules', 'rm_app_installations', 'rm_app_user_settings', 'rm_app_secrets', 'rm_app_connections'],
  handles: [...appEventTypes, ...installationEventTypes],
  async apply(stored, tx) {
    if (appTypes.has(stored.type)) await applyApp(stored as StoredEvent<AppEvent> & AppEvent, tx);
    else await applyInstallation(stored as StoredEvent<InstallationEvent> & InstallationEvent, tx);
  },
};
