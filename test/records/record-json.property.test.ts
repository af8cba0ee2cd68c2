import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyFormats, propertyTypes, type PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import type { RecordViewRow } from '../../read-models/record-views.queries.js';
import type { AuditUserRow } from '../../read-models/users.queries.js';
import { auditActors, type Actors } from '../../src/http/audit-fields.js';
import { ok, okJson, page, pageJson } from '../../src/http/envelope.js';
import { frozenJson, recordJson, recordLayout } from '../../src/records/record-json.js';
import { returnFormats, toRecordView, type ParseMode, type ViewOptions } from '../../src/records/record-view.js';

/**
 * The law of record-json.ts: a record's JSON text written from its row is, byte for byte,
 * `JSON.stringify` of the view the routes built before (`toRecordView`), for any property names
 * (array indexes, which JS puts first; unicode, quotes, control characters, lone surrogates),
 * any stored values, every format and parse mode, `fields`, relations, teams and writers (known,
 * unknown, members or not, or none); and the envelopes around such texts are `ok` / `page`.
 */

const odd = ['0', '12', '4294967294', '4294967295', '01', '-1', '1.5', '__proto__', 'constructor', 'toJSON', '"q"', 'a\\b', '\u0000', '\n\t', '\u2028', '😀', '\ud800', 'é', ''];
const nameArb = fc.oneof(fc.constantFrom(...odd), fc.constantFrom('0', '7', '12', '300'), fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom('name', 'title', 'label'));
const textArb = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom(...odd));
const valueArb: fc.Arbitrary<unknown> = fc.oneof(
  textArb,
  fc.constantFrom(null, 0, -0, 1.5, -2, 1e21, 5e-324, true, false, {}, [], ['a', null], { '1': 'x', b: [1, { '0': null }] }),
  fc.jsonValue({ maxDepth: 2 }),
);
const uuidArb = fc.uuid();
const defArb = fc.record({
  name: nameArb,
  label: textArb,
  type: fc.constantFrom(...propertyTypes),
  format: fc.constantFrom(...propertyFormats),
  options: fc.option(fc.array(fc.record({ value: valueArb, label: textArb }), { maxLength: 3 }), { nil: null }),
}).map((d) => ({ required: false, unique: false, minLength: null, maxLength: null, min: null, max: null, pattern: null, description: '', icon: '', group: null, relationUuid: null, ...d }) as PropertyDefinition);

const linkArb = fc.record({
  relation_uuid: uuidArb,
  relation_name: textArb,
  from_name: textArb,
  to_name: fc.option(textArb, { nil: null }),
  from_record: uuidArb,
  to_record: uuidArb,
  edge_properties: fc.dictionary(nameArb, valueArb, { maxKeys: 3 }),
  other_uuid: uuidArb,
  other_object: fc.option(textArb, { nil: null }),
  other_vals: fc.option(fc.dictionary(nameArb, valueArb, { maxKeys: 3 }), { nil: null }),
  other_deleted_at: fc.option(fc.nat(), { nil: null }),
});

const userArb = fc.record({
  user_uuid: uuidArb,
  email: textArb,
  firstname: textArb,
  lastname: textArb,
  created_at: fc.nat(),
  updated_at: fc.nat(),
  revision: fc.nat(),
  role: fc.constantFrom(null, 'USER', 'ADMIN', 'DEVELOPER'),
  active: fc.constantFrom(null, true, false),
  scopes: fc.option(fc.array(textArb, { maxLength: 3 }), { nil: null }),
  team_scopes: fc.array(textArb, { maxLength: 2 }),
}) as fc.Arbitrary<AuditUserRow>;

const caseArb = fc
  .record({
    tenant: uuidArb,
    users: fc.array(userArb, { minLength: 1, maxLength: 3 }),
    // Definitions have distinct names (definitionsOf); a copy of one now and then all the same.
    defs: fc.tuple(fc.uniqueArray(defArb, { selector: (d) => d.name, maxLength: 6 }), fc.boolean()).map(([defs, copy]) => (copy && defs.length > 2 ? [...defs, defs[1]!] : defs)),
    extraNames: fc.array(nameArb, { maxLength: 3 }),
    format: fc.constantFrom(...returnFormats),
    parse: fc.constantFrom<ParseMode>('raw', 'raw', 'human_readable', 'structured'),
    fields: fc.option(fc.array(fc.nat(8), { maxLength: 4 }), { nil: undefined }),
    records: fc.array(
      fc.record({
        uuid: uuidArb,
        objectName: textArb,
        objectNames: fc.array(fc.record({ uuid: uuidArb, name: textArb }), { maxLength: 2 }),
        values: fc.array(valueArb, { maxLength: 8 }),
        times: fc.tuple(fc.nat(), fc.nat(), fc.option(fc.nat(), { nil: null }), fc.nat()),
        // Writers: a user of the case (by index), nobody, a user nobody knows, a non-uuid actor.
        writers: fc.array(fc.oneof(fc.nat(2), fc.constantFrom(null, 'system', '00000000-0000-4000-8000-00000000beef')), { minLength: 4, maxLength: 4 }),
        teams: fc.array(fc.record({ uuid: uuidArb, name: textArb }), { maxLength: 2 }),
        links: fc.option(fc.array(linkArb, { maxLength: 2 }), { nil: null }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  })
  .map((c) => {
    const names = [...c.defs.map((d) => d.name), ...c.extraNames];
    const writer = (w: number | string | null) => (typeof w === 'number' ? c.users[w % c.users.length]!.user_uuid : w);
    const rows = c.records.map((r): RecordViewRow => {
      const [created, updated, deleted, revision] = r.times;
      // Values under the defined names and others; some names left out (shown as null).
      const vals = Object.fromEntries(r.values.map((v, i) => [names[i % Math.max(names.length, 1)] ?? `k${i}`, v]));
      const [createdBy, updatedBy, deletedBy, user] = r.writers.map(writer);
      return {
        uuid: r.uuid, object_uuid: c.tenant, primary_object_uuid: c.tenant, object_name: r.objectName, extends: [], vals,
        created_at: created, updated_at: updated, created_by: createdBy!, updated_by: updatedBy!, deleted_at: deleted, deleted_by: deletedBy!,
        revision, user_uuid: user!, object_names: r.objectNames, properties: [], teams: r.teams, links: r.links,
      };
    });
    const fields = c.fields && new Set(c.fields.map((i) => names[i % Math.max(names.length, 1)] ?? 'none'));
    const opts: ViewOptions = { format: c.format, parse: c.parse, fields };
    return { ...c, rows, opts };
  });

/** The writers of a case as the routes get them (audit-fields.ts, with its users' query answered from the case). */
const actorsOf = (tenant: string, users: readonly AuditUserRow[], rows: readonly RecordViewRow[]): Promise<Actors> => {
  const sql = { query: async <T,>(_text: string, params?: unknown[]) => users.filter((u) => (params![1] as string[]).includes(u.user_uuid)) as T[] };
  return auditActors(sql, tenant, rows.flatMap((r) => [r.created_by, r.updated_by, r.deleted_by, r.user_uuid]));
};

describe('record JSON written from rows', () => {
  it('is JSON.stringify of the view, record by record and page by page', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.nat(), fc.nat(5), async (c, total, n) => {
        const actors = await actorsOf(c.tenant, c.users, c.rows);
        const layout = recordLayout(c.defs, c.opts);
        // Twice: the second time the writers' texts are the kept ones.
        for (let round = 0; round < 2; round++) {
          const texts = c.rows.map((r) => recordJson(r, layout, actors));
          const views = c.rows.map((r) => toRecordView(r, c.opts, actors, c.defs));
          texts.forEach((t, i) => expect(t).toBe(JSON.stringify(views[i])));
          expect(pageJson(texts, total, n, 25)).toBe(JSON.stringify(page(views, total, n, 25)));
          expect(okJson(texts[0]!, 'found')).toBe(JSON.stringify(ok(views[0], 'found')));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('puts array-index names first, as the view map does', () => {
    const def = (name: string) => ({ name, label: name, type: 'string', format: 'text', options: null }) as PropertyDefinition;
    const defs = ['b', '12', 'a', '0', '01'].map(def);
    const none = { actor: () => null, member: () => null };
    const row = { uuid: 'u', object_name: 'o', object_names: [], vals: { b: 1, '12': 2, a: 3, '0': 4 }, created_at: 1, updated_at: 2, deleted_at: null, revision: 1, teams: [], links: null } as unknown as RecordViewRow;
    const text = recordJson(row, recordLayout(defs, { format: 'USER_FRIENDLY', parse: 'raw' }), none);
    expect(text).toContain('"properties":{"0":4,"12":2,"b":1,"a":3,"01":null}');
    expect(text).toBe(JSON.stringify(toRecordView(row, { format: 'USER_FRIENDLY', parse: 'raw' }, none, defs)));
  });

  it('keeps the text of a frozen writer only: the actors of audit-fields.ts are frozen through and through', async () => {
    const user: AuditUserRow = { user_uuid: '00000000-0000-4000-8000-0000000000a1', email: 'a@b.c', firstname: 'A', lastname: 'B', created_at: 1, updated_at: 2, revision: 3, role: 'ADMIN', active: true, scopes: ['x'], team_scopes: [] };
    const row = { created_by: user.user_uuid, updated_by: null, deleted_by: null, user_uuid: null } as RecordViewRow;
    const actor = (await actorsOf('00000000-0000-4000-8000-0000000000f1', [user], [row])).actor(user.user_uuid)!;
    expect(Object.isFrozen(actor) && Object.isFrozen(actor.user) && Object.isFrozen(actor.user.scopes) && Object.isFrozen(actor.properties[0])).toBe(true);
    expect(() => actor.user.scopes.push('y')).toThrow(TypeError);
    expect(frozenJson(actor)).toBe(JSON.stringify(actor));
    const plain = { a: 1 };
    expect(frozenJson(plain)).toBe('{"a":1}');
    plain.a = 2;
    expect(frozenJson(plain)).toBe('{"a":2}');
  });
});
