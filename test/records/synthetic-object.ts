import type { Sql } from '../../ports/sql.js';
import type { FilterCatalog } from '../../aggregates/record-filter/filter.compile.js';

/**
 * A large object written straight into the read model by set-based SQL (generate_series), for
 * plan tests: n records of a deal-like object whose rows are what the records projection writes
 * (records, record_fields, record_values, record_counts), in seconds instead of minutes.
 * Text is ASCII, so SQL's lower() folds it as the projection does.
 */
export const syntheticCatalog: FilterCatalog = {
  properties: {
    name: { name: 'name', type: 'text' },
    status: { name: 'status', type: 'text', fewValues: true },
    due: { name: 'due', type: 'date' },
    amount: { name: 'amount', type: 'number' },
    city: { name: 'city', type: 'text' },
    email: { name: 'email', type: 'text' },
  },
  relations: {},
};

export async function seedSyntheticObject(sql: Sql, tenant: string, objectUuid: string, n: number): Promise<void> {
  await sql.query(
    `with src as (
       select i, abs(hashint4(i)) as h from generate_series(1, $3::int) i
     ), v as (
       select i, h, (array['ka','lo','mi','ra','te','su','vo','ne','pi','da','ge','ru'])[1 + h % 12]
                 || (array['ka','lo','mi','ra','te','su','vo','ne','pi','da','ge','ru'])[1 + (h / 12) % 12]
                 || (array['ka','lo','mi','ra','te','su','vo','ne','pi','da','ge','ru'])[1 + (h / 144) % 12] as w
         from src
     )
     insert into records (tenant, object_uuid, uuid, is_primary, primary_object_uuid, object_name, vals, search, created_at, updated_at, revision)
     select $1, $2::uuid, md5($1 || i)::uuid, true, $2::uuid, 'deal', d, scoped_tsvector($2::uuid, to_tsvector('simple', d->>'name')), 1700000000000 + i, 1700000000000 + i, 0
       from (select i, jsonb_build_object(
               'name', initcap(w) || ' Holdings ' || i,
               'status', (array['active','active','active','won','lost'])[1 + (h / 1728) % 5],
               'due', to_char(date '2022-01-01' + (h / 8640) % 2000, 'YYYY-MM-DD'),
               'amount', (h % 100000) / 100.0,
               'city', (array['Lisbon','Porto','Braga','Faro'])[1 + (h / 7) % 4],
               'email', 'contact' || i || '@' || w || '.example') as d from v) x`,
    [tenant, objectUuid, n],
  );
  await sql.query(
    `insert into record_fields (tenant, object_uuid, name) select $1, $2::uuid, k from unnest(array['name','status','due','amount','city','email']) k on conflict do nothing`,
    [tenant, objectUuid],
  );
  await sql.query(
    `insert into record_values (tenant, fid, rid, t, tf, n)
     select r.tenant, f.fid, r.rid,
            case when jsonb_typeof(e.value) = 'string' then left(e.value #>> '{}', 200) end,
            case when jsonb_typeof(e.value) = 'string' then lower(e.value #>> '{}') end,
            case when jsonb_typeof(e.value) = 'number' then (e.value)::float8 end
       from records r cross join lateral jsonb_each(r.vals) e
       join record_fields f on f.tenant = r.tenant and f.object_uuid = r.object_uuid and f.name = e.key
      where r.tenant = $1 and r.object_uuid = $2::uuid`,
    [tenant, objectUuid],
  );
  await sql.query(
    `insert into record_counts (tenant, object_uuid, shard, live, archived, changes) values ($1, $2::uuid, 0, $3, 0, $3)
     on conflict (tenant, object_uuid, shard) do update set live = record_counts.live + excluded.live`,
    [tenant, objectUuid, n],
  );
}
