import { invalid } from '../kernel/errors.js';

/**
 * Every top-level route group under /api/v2. Object-scoped record routes live at
 * `/api/v2/{objectName}/...`, so no object may take one of these names. Add a group here when
 * you add one to src/app.ts.
 */
export const reservedObjectNames = [
  'records', 'objects', 'properties', 'forms', 'webpages', 'webmenus', 'relations', 'traits', 'modules',
  'filters', 'sync', 'syncs', 'webhooks', 'apps', 'app-bars', 'auth', 'companies', 'company', 'teams',
  'users', 'files', 'feeds', 'partners', 'events', 'dev', 'cms', 'developer-sandboxes', 'docs',
  'openapi.json', 'billing', 'calendars', 'notifications', 'automations', 'content', 'tracking',
  'public', 'health', 'api', 'index', 'me',
] as const;
const reserved: ReadonlySet<string> = new Set(reservedObjectNames);

const OBJECT_NAME = /^[a-z][a-z0-9_]*$/;
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]*$/;
const MAX_NAME = 63;

/** An object name: a lowercase identifier that is not a route group. */
export function checkObjectName(raw: string): string {
  const name = raw.trim();
  if (!OBJECT_NAME.test(name) || name.length > MAX_NAME) {
    const hint = name.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^[^a-z]+/, '').slice(0, MAX_NAME);
    throw invalid(
      'body.name',
      `name "${raw}" is not a lowercase identifier`,
      `Use 1 to ${MAX_NAME} lowercase letters, digits and underscores, starting with a letter${hint ? `, e.g. "${hint}"` : ''}`,
      'INVALID_VALUE',
    );
  }
  if (reserved.has(name)) {
    throw invalid('body.name', `name "${name}" is reserved for a built-in resource of the platform`, `Choose another name, e.g. "${name}_item" or a singular noun of your domain`, 'INVALID_VALUE');
  }
  return name;
}

/** A property or relation name: an identifier (letters, digits, underscores; starts with a letter). */
export function checkIdentifier(field: string, raw: string): string {
  const name = raw.trim();
  if (!IDENTIFIER.test(name) || name.length > MAX_NAME) {
    throw invalid(`body.${field}`, `${field} "${raw}" is not an identifier`, `Use 1 to ${MAX_NAME} letters, digits and underscores, starting with a letter`, 'INVALID_VALUE');
  }
  return name;
}

/** A required display text: trimmed, 1 to `max` characters. */
export function checkText(field: string, raw: string, max = 200): string {
  const text = raw.trim();
  if (!text || text.length > max) throw invalid(`body.${field}`, `${field} must have 1 to ${max} characters`, `Send a non-empty ${field} of at most ${max} characters`, 'INVALID_VALUE');
  return text;
}

/** An optional display text: trimmed, at most `max` characters ('' when absent). */
export function checkOptionalText(field: string, raw: string | undefined | null, max = 2000): string {
  const text = (raw ?? '').trim();
  if (text.length > max) throw invalid(`body.${field}`, `${field} must have at most ${max} characters`, `Shorten ${field} to ${max} characters`, 'INVALID_VALUE');
  return text;
}

/** An optional group name: null when absent or blank. */
export function checkGroup(raw: string | undefined | null): string | null {
  const text = checkOptionalText('group', raw, 200);
  return text === '' ? null : text;
}
