import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { wrongState } from '../../aggregates/object/object.decider.js';
import type { ObjectRow } from '../../read-models/objects.queries.js';
import { objectByUuid } from '../../read-models/objects.queries.js';
import type { Sql } from '../db/db.js';

/** A name already used in its scope (409), with what to do about it. */
export const nameTaken = (what: string, name: string, correctionSuggestion: string) =>
  new DomainError('CONFLICT', `${what} name "${name}" is taken`, [{ message: `Another ${what.toLowerCase()} is called "${name}"`, type: 'INVALID_VALUE', correctionSuggestion }]);

/** The tenant's object `objectUuid`, deleted or not: another company's object is the same 404 as a missing one. */
export async function existingObject(sql: Sql, tenant: string, objectUuid: string): Promise<ObjectRow> {
  const row = await objectByUuid(sql, tenant, objectUuid);
  if (!row) throw notFound('Object', objectUuid);
  return row;
}

/** The tenant's live object: a soft-deleted one answers 409 with the way to restore it. */
export async function liveObject(sql: Sql, tenant: string, objectUuid: string): Promise<ObjectRow> {
  const row = await existingObject(sql, tenant, objectUuid);
  if (row.deleted_at !== null) throw wrongState(`Object ${row.name} is deleted`, `Restore it first with POST /api/v2/objects/${objectUuid}/restore`);
  return row;
}
