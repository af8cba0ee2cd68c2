import type { TestApp } from '../support/test-app.js';

/**
 * Another transaction makes the pivot key of property `name` and holds it uncommitted until
 * `release`: a statement that starts meanwhile and wants the key waits on it, then cannot see it
 * (its snapshot is older), so its pivot row for `name` would be left out.
 */
export async function holdNewPivotKey(t: TestApp, tenant: string, objectName: string, name: string): Promise<{ release(): Promise<void> }> {
  const [object] = await t.platform.db.query<{ object_uuid: string }>('select object_uuid from rm_objects where tenant = $1 and name = $2', [tenant, objectName]);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let keyed!: () => void;
  const hasKey = new Promise<void>((r) => (keyed = r));
  const other = t.platform.db.transaction(async (tx) => {
    await tx.query('insert into record_fields (tenant, object_uuid, name) values ($1, $2, $3)', [tenant, object!.object_uuid, name]);
    keyed();
    await held;
  });
  await hasKey;
  return {
    async release() {
      release();
      await other;
    },
  };
}
