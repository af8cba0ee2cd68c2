import type { Projection } from './projection.js';
import { usersProjection } from './users.projection.js';
import { companiesProjection } from './companies.projection.js';
import { membershipsProjection } from './memberships.projection.js';
import { teamsProjection } from './teams.projection.js';
import { objectsProjection } from './objects.projection.js';
import { propertiesProjection } from './properties.projection.js';
import { relationsProjection } from './relations.projection.js';
import { recordLinksProjection } from './record-links.projection.js';
import { traitsProjection } from './traits.projection.js';
import { webhooksProjection } from './webhooks.projection.js';
import { syncsProjection } from './syncs.projection.js';
import { recordsProjection } from './records.projection.js';
import { savedFiltersProjection } from './saved-filters.projection.js';
import { filesProjection } from './files.projection.js';
import { pagesProjection } from './pages.projection.js';
import { cmsEnvironmentsProjection } from './cms-environments.projection.js';
import { cmsModulesProjection } from './cms-modules.projection.js';
import { pageTranslationsProjection } from './page-translations.projection.js';
import { viewsProjection } from './views.projection.js';
import { calendarEntriesProjection, calendarsProjection } from './calendars.projection.js';
import { inboxPreferencesProjection, notificationsProjection } from './notifications.projection.js';
import { appsProjection } from './apps.projection.js';
import { appFunctionsProjection } from './app-functions.projection.js';
import { webMenusProjection } from './web-menus.projection.js';
import { formsProjection, formSubmissionsProjection } from './forms.projection.js';
import { cmsTransfersProjection } from './cms-transfers.projection.js';
import { billingProjection } from './billing.projection.js';
import { trackingSitesProjection } from './tracking-sites.projection.js';
import { feedsProjection } from './feeds.projection.js';
import { sandboxesProjection } from './sandboxes.projection.js';
import { companyCopiesProjection } from './company-copies.projection.js';

/** Every read model of the platform, in the order they apply. */
export const projections: readonly Projection[] = [
  usersProjection,
  companiesProjection,
  membershipsProjection,
  teamsProjection,
  // Dynamic schema (issue 4).
  objectsProjection,
  propertiesProjection,
  relationsProjection,
  recordLinksProjection,
  traitsProjection,
  // Webhooks and syncs (issue 6).
  webhooksProjection,
  syncsProjection,
  // Records (issue 5).
  recordsProjection,
  savedFiltersProjection,
  // Files (issue 17).
  filesProjection,
  // Webpages and the CMS (issue 16).
  pagesProjection,
  cmsEnvironmentsProjection,
  cmsModulesProjection,
  pageTranslationsProjection,
  // Views (issue 21).
  viewsProjection,
  // Calendars (issue 39).
  calendarsProjection,
  calendarEntriesProjection,
  // Notifications (issue 39).
  notificationsProjection,
  inboxPreferencesProjection,
  // Apps (issue 19).
  appsProjection,
  appFunctionsProjection,
  webMenusProjection,
  // Forms (issue 18).
  formsProjection,
  formSubmissionsProjection,
  // CMS v2 transfer (issue 37).
  cmsTransfersProjection,
  // Billing status (issue 40).
  billingProjection,
  trackingSitesProjection,
  feedsProjection,
  // Developer sandboxes (issue 36).
  sandboxesProjection,
  companyCopiesProjection,
];
