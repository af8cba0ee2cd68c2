/**
 * The one thing the schema needs to know about records: whether `recordUuid` is a live record of
 * the object `objectUuid` in `tenant`. Connections check both ends through it.
 *
 * Records are not stored yet (a later issue): until then every record uuid is taken on trust.
 * The records issue passes its own implementation, a query on its read model, to
 * `makeConnectionsService` in src/app.ts.
 */
export type RecordExists = (tenant: string, objectUuid: string, recordUuid: string) => Promise<boolean>;

export const recordsNotStoredYet: RecordExists = async () => true;
