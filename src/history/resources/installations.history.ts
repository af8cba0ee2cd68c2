import { installationStream, type InstallationEvent } from '../../../aggregates/app/installation.events.js';
import type { StoredEvent } from '../../../aggregates/kernel/events.js';
import { installationOf, type InstallationRow } from '../../../read-models/apps.queries.js';
import { toInstallation } from '../../apps/apps.schemas.js';
import { companyActor } from '../../auth/actor.js';
import type { Db } from '../../db/db.js';
import type { ResourceHistoryAdapter } from '../resource-history.js';

const without = (o: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

/**
 * App installations: `rm_app_installations` as projections/apps.projection.ts writes it. The
 * answer (`AppInstallation`) holds no secret; the events' signing secrets, client secret hashes,
 * secret values and OAuth tokens are ciphertexts or hashes, and "[redacted]" in the history.
 * The uuid is the app's: an installation is the app's stream in the installing company.
 */
export const installationsHistory = (db: Db): ResourceHistoryAdapter<InstallationRow> => ({
  kind: 'App installation',
  historyPath: '/api/v2/apps/{appUuid}/installation/history',
  stream: installationStream,
  async find(request, appUuid) {
    const tenant = companyActor(request).tenant;
    const row = await installationOf(db, tenant, appUuid);
    return row && { tenant, row };
  },
  evolve(row, stored: StoredEvent, current) {
    const event = stored as unknown as InstallationEvent;
    const at = stored.metadata.occurredAt;
    const moved = (r: InstallationRow, more: Partial<InstallationRow> = {}): InstallationRow => ({ ...r, ...more, updated_at: at, revision: stored.revision });
    switch (event.type) {
      case 'AppInstalled': {
        const d = event.data;
        const base: InstallationRow = row ?? { tenant: current.tenant, app_uuid: current.app_uuid, app_tenant: d.appTenant, installed: true, settings: {}, state: {}, credentials: d.credentials, previous_credentials: null, previous_valid_until: null, granted_scopes: [], installed_at: at, updated_at: at, revision: stored.revision };
        return moved(base, { installed: true, settings: { ...base.settings, ...d.settings }, credentials: d.credentials, previous_credentials: null, previous_valid_until: null, installed_at: at });
      }
      case 'AppUninstalled':
        if (!row) return row;
        return moved(row, event.data.keepData ? { installed: false, granted_scopes: [] } : { installed: false, granted_scopes: [], settings: {}, state: {} });
      case 'AppCredentialsRotated':
        return row && moved(row, { previous_credentials: row.credentials, credentials: event.data.credentials, previous_valid_until: event.data.previousValidUntil });
      case 'InstallationStateChanged':
        return row && moved(row, { state: without({ ...row.state, ...event.data.set }, event.data.removed) });
      case 'InstallationSettingsChanged': {
        if (!row) return row;
        const changes = event.data.changes;
        const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== null));
        return moved(row, { settings: without({ ...row.settings, ...set }, Object.keys(changes).filter((k) => changes[k] === null)) as InstallationRow['settings'] });
      }
      case 'InstallationScopesGranted':
        return row && moved(row, { granted_scopes: event.data.scopes });
      default:
        return row && moved(row);
    }
  },
  render: (row) => toInstallation(row),
});
