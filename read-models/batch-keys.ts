/**
 * The (tenant, uuid) keys of a batch read as a FROM item `q(tenant, uuid)` whose row count the
 * planner knows whatever the values: a VALUES list of exactly the batch's size (one prepared
 * statement per size, named `${name}_${n}`), up to `BATCH_KEYS_LISTED` keys; larger batches as
 * `unnest` of two arrays.
 *
 * Why: PostgreSQL estimates `unnest($1)` of a parameter at 10 rows in a generic plan and at the
 * array's length in a custom one, so for batches of a few keys the generic plan always looked
 * dearer and every execution was planned again (0.14-0.3 ms of planning for 0.1 ms of execution;
 * 8 % of the database's CPU under bench:compare's updates, docs/records.md "Session 10: writes").
 * With the size in the statement both plans cost the same and the generic plan is kept.
 */
export const BATCH_KEYS_LISTED = 16;

export interface BatchKeys {
  /** `(values ($1::text, $2::uuid), ...) as q(tenant, uuid)` or the `unnest` form. */
  from: string;
  params: unknown[];
  /** The prepared statement's name for this size. */
  name: string;
}

export function batchKeys(keys: readonly { tenant: string; uuid: string }[], name: string): BatchKeys {
  if (keys.length > BATCH_KEYS_LISTED) {
    return { from: 'unnest($1::text[], $2::uuid[]) as q(tenant, uuid)', params: [keys.map((k) => k.tenant), keys.map((k) => k.uuid)], name };
  }
  const rows = keys.map((_, i) => `($${2 * i + 1}::text, $${2 * i + 2}::uuid)`);
  return { from: `(values ${rows.join(', ')}) as q(tenant, uuid)`, params: keys.flatMap((k) => [k.tenant, k.uuid]), name: `${name}_${keys.length}` };
}
