import { FORM_STREAM_PREFIX } from '../../aggregates/form/form.events.js';
import { broadcastStale } from '../cache/cache-bus.js';
import { shortLived } from '../cache/short-lived.js';
import { formByUuid, type FormRow } from '../../read-models/forms.queries.js';
import { relationOf, type RelationRow } from '../../read-models/relations.queries.js';
import type { Sql } from '../../ports/sql.js';

/**
 * What a public submission reads before it writes: the form's row and its inner forms' relations,
 * per process for at most SCHEMA_CACHE_MS (default 1 s; 0 turns it off), as the records' object
 * cache keeps objects (src/records/object-cache.ts). An append to one of the tenant's form streams
 * or schema streams (a relation's) in this process forgets the tenant's entries at once and tells
 * the other processes (src/cache/cache-bus.ts); SCHEMA_CACHE_MS bounds a missed notification. The
 * form read was never locked against a change that follows it: the cache widens that window by
 * the notification's way, it does not open it (docs/forms.md).
 */
const forms = shortLived<FormRow | null>({ ttlMs: 1000 });
const relations = shortLived<RelationRow | null>({ ttlMs: 1000 });

export function configureFormCache(ms: number) {
  forms.configure(ms);
  relations.configure(ms);
}

/** The tenant's form `formUuid` (deleted or not; null when there is none), from the cache or read (and kept); requests that miss at once share one read. */
export const cachedForm = (sql: Sql, tenant: string, formUuid: string): Promise<FormRow | null> => forms.load(tenant, formUuid, Date.now(), () => formByUuid(sql, tenant, formUuid));

/** The tenant's relation (null when there is none or it is purged), from the cache or read (and kept); requests that miss at once share one read. */
export const cachedRelation = (sql: Sql, tenant: string, relationUuid: string): Promise<RelationRow | null> =>
  relations.load(tenant, relationUuid, Date.now(), () => relationOf(sql, tenant, relationUuid));

/** What another process's forgetForms sends: the prefix, then the tenant. */
export const STALE_FORMS = 'forms:';

/** Forgets the tenant's forms and relations here. */
export function forgetFormsHere(tenant: string) {
  forms.forget(tenant);
  relations.forget(tenant);
}

/** Forgets them here and tells the other processes to (resolves once they are told). */
export function forgetForms(tenant: string): Promise<void> {
  forgetFormsHere(tenant);
  return broadcastStale(`${STALE_FORMS}${tenant}`);
}

const FORM_STREAM = new RegExp(`^${FORM_STREAM_PREFIX}[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, 'i');

/** A form's own stream (not a submission's, which changes no form). */
export const affectsForms = (streamId: string) => FORM_STREAM.test(streamId);
