/**
 * The keys of a batch read as a FROM item `q(...)` whose row count the planner knows whatever the
 * values: a VALUES list of exactly the batch's size (one prepared statement per size, named
 * `${name}_${n}`), up to `BATCH_KEYS_LISTED` keys; larger batches as `unnest` of one array per
 * column, under `name` itself.
 *
 * Why (docs/adr/0009-write-statements-keep-their-generic-plan.md): PostgreSQL estimates
 * `unnest($1)` of a parameter at 10 rows in a generic plan and at the array's length in a custom
 * one, so for batches of a few keys the generic plan always looked dearer and every execution was
 * planned again (0.3-0.7 ms of planning for 0.05-0.1 ms of execution). With the size in the
 * statement both plans cost the same and the generic plan is kept.
 */
export const BATCH_KEYS_LISTED = 16;

export interface BatchKeys {
  /** `(values ($1::text, $2::uuid), ...) as q(tenant, uuid)` or the `unnest` form. */
  from: string;
  params: unknown[];
  /** The prepared statement's name for this size. */
  name: string;
  /** Whether `from` is the VALUES form (a statement per size). */
  listed: boolean;
}

/** A column of the keys: its name in `q`, its SQL type, its value for a key. */
export type KeyColumn<K> = readonly [name: string, type: string, value: (key: K) => unknown];

/** (tenant, uuid): the columns of most batch reads. */
export const tenantAndUuid: readonly KeyColumn<{ tenant: string; uuid: string }>[] = [
  ['tenant', 'text', (k) => k.tenant],
  ['uuid', 'uuid', (k) => k.uuid],
];

export function batchKeys<K>(keys: readonly K[], name: string, columns: readonly KeyColumn<K>[]): BatchKeys {
  const names = columns.map(([column]) => column).join(', ');
  if (keys.length > BATCH_KEYS_LISTED) {
    return {
      from: `unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) as q(${names})`,
      params: columns.map(([, , value]) => keys.map(value)),
      name,
      listed: false,
    };
  }
  const width = columns.length;
  const rows = keys.map((_, i) => `(${columns.map(([, type], c) => `$${width * i + c + 1}::${type}`).join(', ')})`);
  return { from: `(values ${rows.join(', ')}) as q(${names})`, params: keys.flatMap((k) => columns.map(([, , value]) => value(k))), name: `${name}_${keys.length}`, listed: true };
}
