import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { HistoryKind, ResourceHistories } from './history-routes.js';
import { installationHistoryRoutes } from './installation-history.routes.js';
import { makeResourceHistory, type ResourceHistoryAdapter } from './resource-history.js';
import { companySettingsHistory } from './resources/company-settings.history.js';
import { filesHistory } from './resources/files.history.js';
import { formsHistory } from './resources/forms.history.js';
import { installationsHistory } from './resources/installations.history.js';
import { savedFiltersHistory } from './resources/saved-filters.history.js';
import { viewsHistory } from './resources/views.history.js';
import { webhooksHistory } from './resources/webhooks.history.js';

/**
 * History and asOf of every resource (issue 38, docs/events.md "History and asOf of every
 * resource"). Registered before the features: each feature's routes add `GET .../history` and
 * `asOf` on their GET with `historyRoute` / `withAsOf` (src/history/history-routes.ts), which
 * read the adapters decorated here. App installations, which have no read route of their own,
 * get both here.
 */
export async function registerHistory(app: FastifyInstance, deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;
  const adapters: Record<HistoryKind, ResourceHistoryAdapter> = {
    forms: formsHistory(db),
    views: viewsHistory(db),
    'saved-filters': savedFiltersHistory(db),
    webhooks: webhooksHistory(db),
    files: filesHistory(db),
    'app-installations': installationsHistory(db),
    'company-settings': companySettingsHistory(db),
  };
  const histories: ResourceHistories = { history: makeResourceHistory({ db, store }), adapters };
  app.decorate('resourceHistories', histories);
  await app.register(installationHistoryRoutes({ db }), { prefix: '/api/v2/apps' });
}
