/**
 * The scope catalogue: every scope a route may require. A member holds the scopes of its
 * membership plus those of its teams; ADMIN and SUPER_ADMIN hold every scope. docs/scopes.md lists
 * the same names (a test keeps the two in step). Add new scopes here.
 */
export const scopeCatalogue = {
  'apps:functions': "Invoke an installed app's functions, enqueue and read its jobs, read its runtime logs",
  'apps:install': 'Install, uninstall and rotate apps; change an installation\'s company settings, state and secrets; connect and revoke OAuth',
  'apps:write': 'Create apps of the company, change them and submit them for review',
  'company-settings:write': 'Change the company settings of spec 2.10 (branding, links, scripts)',
  'feeds:read': 'List and read feeds',
  'feeds:write': 'Create, change, delete, restore feeds and rotate their public URL',
  'forms:read': 'List and read forms and their submissions',
  'forms:write': 'Create, change, delete and restore forms',
  'members:read': 'List the members of the selected company',
  'schema:write': 'Create, change, delete and restore objects, properties, relations and traits (the dynamic schema)',
  'syncs:read': 'List and read syncs',
  'syncs:write': 'Create, change, delete and restore syncs',
  'teams:write': 'Create, change and delete teams, their members and their record assignments',
  'views:share': 'Share views with the company or a team, and change or delete shared views of others',
  'webhooks:read': 'List and read webhooks, their delivery log and test payloads',
  'webhooks:write': 'Create, change and delete webhooks; redeliver and replay deliveries',
  'webpages:write': 'Create and edit webpages, their modules, environments, menus and templates; publish and unpublish',
} as const;

export type Scope = keyof typeof scopeCatalogue;
export const scopeNames = Object.keys(scopeCatalogue) as Scope[];
