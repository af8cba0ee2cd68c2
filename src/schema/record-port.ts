/**
 * The one thing the schema needs to know about records: whether `recordUuid` is a live record of
 * the object `objectUuid` in `tenant`. Connections check both ends through it.
 *
 * src/app.ts passes the records read model's check (`recordExistsIn`, src/records/records.module.ts).
 * `recordsNotStoredYet` trusts every uuid: it is only the default when no check is given (tests of
 * the schema alone).
 */
export type RecordExists = (tenant: string, objectUuid: string, recordUuid: string) => Promise<boolean>;

export const recordsNotStoredYet: RecordExists = async () => true;
