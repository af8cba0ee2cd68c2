import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { objectByName, parseValue } from '../schema.js';
import { ErrorBox, Field, Loading, Select, show, useAction, useData, when } from '../ui.js';
import { ColumnChooser, systemFields, ViewBar, type Column, type View } from './record-views.js';

const operators = ['equals', 'notEquals', 'contains', 'startsWith', 'gt', 'gte', 'lt', 'lte', 'isnull', 'isnotnull'] as const;
type Operator = (typeof operators)[number];
interface Filter {
  key: string;
  operator: Operator;
  value: string;
}

/** The records of one object: filters, sort, paging, free text, archived ones, a new record. */
export function Records({ objectName }: { objectName: string }) {
  const schema = useData(() => objectByName(objectName), [objectName]);
  const [filters, setFilters] = useState<Filter[]>([]);
  const [draft, setDraft] = useState<Filter>({ key: '', operator: 'equals', value: '' });
  const [sort, setSort] = useState({ key: 'createdAt', direction: 'desc' as 'asc' | 'desc' });
  const [query, setQuery] = useState('');
  const [archived, setArchived] = useState<'exclude' | 'include' | 'only'>('exclude');
  const [pageNo, setPageNo] = useState(0);
  const [limit, setLimit] = useState(25);
  const [groups, setGroups] = useState<unknown[]>([]);
  const [columns, setColumns] = useState<Column[] | null>(null);
  const [groupBy, setGroupBy] = useState<string | null>(null);
  const [view, setView] = useState<View | null>(null);
  const props = schema.data?.properties ?? [];
  const apiFilters = filters.map((f) => ({ key: f.key, operator: f.operator, ...(f.operator === 'isnull' || f.operator === 'isnotnull' ? {} : { value: parseValue(props.find((p) => p.name === f.key), f.value) }) }));
  const records = useData(
    () =>
      api.listPost('/api/v2/{objectName}/index', {
        params: { path: { objectName } },
        body: {
          filters: apiFilters,
          ...(groups.length ? { groups: groups as never } : {}),
          sort: [sort],
          page: pageNo,
          limit,
          archived,
          ...(query ? { query } : {}),
        },
      }),
    [objectName, JSON.stringify(filters), JSON.stringify(groups), sort.key, sort.direction, pageNo, limit, archived, query, props.length],
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const action = useAction();
  if (schema.loading && !schema.data) return <Loading what="the object" />;
  if (!schema.data) return <ErrorBox error={schema.error} />;
  const keys: [string, string][] = props.map((p) => [p.name, p.label]);
  const fields: [string, string][] = [...keys, ...systemFields];
  const shown: Column[] = columns ?? [...props.map((p) => ({ key: p.name, width: null })), { key: 'updatedAt', width: null }];
  const labelOf = (key: string) => fields.find(([k]) => k === key)?.[1] ?? key;
  const selects = props.filter((p) => p.format === 'select' || p.format === 'multi-select');
  /** Opening a view puts its columns, filters, sort, page size and grouping in the table. */
  const openView = (v: View | null) => {
    setView(v);
    setPageNo(0);
    if (!v) {
      setColumns(null), setFilters([]), setGroups([]), setGroupBy(null), setLimit(25), setSort({ key: 'createdAt', direction: 'desc' });
      return;
    }
    setColumns(v.columns.length ? v.columns : null);
    setFilters((v.filters as { key: string; operator: Operator; value?: unknown }[]).map((f) => ({ key: f.key, operator: f.operator, value: show(f.value) })));
    setGroups(v.groups);
    setSort(v.sort[0] ? { key: v.sort[0].key, direction: v.sort[0].direction === 'asc' ? 'asc' : 'desc' } : { key: 'createdAt', direction: 'desc' });
    setLimit(v.pageSize);
    setGroupBy(v.groupBy);
  };
  const tableState = () => ({ columns: shown, filters: apiFilters, groups, sort, pageSize: limit, groupBy });
  const cell = (r: Record<string, unknown>, key: string) => {
    const values = r.properties as Record<string, unknown>;
    if (key in values) return show(values[key]);
    if (key === 'createdAt' || key === 'updatedAt') return when(r[key] as number);
    return show(r[key]);
  };
  const addFilter = (e: Event) => {
    e.preventDefault();
    const key = draft.key || props[0]?.name;
    if (!key) return;
    setFilters([...filters, { ...draft, key }]);
    setDraft({ ...draft, value: '' });
    setPageNo(0);
  };
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const properties = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '').map(([k, v]) => [k, parseValue(props.find((p) => p.name === k), v)]));
      await api.post('/api/v2/{objectName}/', { params: { path: { objectName } }, body: { properties } });
      setValues({});
      records.reload();
    });
  };
  const data = records.data;
  return (
    <>
      <h1>
        Records of {schema.data.object.label} <span class="muted">({objectName})</span>
      </h1>
      <p>
        <a href={`#/objects/${schema.data.object.uuid}`}>Properties, relations and traits of {objectName}</a>
      </p>
      <form class="inline" onSubmit={create} aria-label="New record">
        {props.map((p) => (
          <Field key={p.name} label={p.label} name={`new-${p.name}`} value={values[p.name] ?? ''} onInput={(v) => setValues({ ...values, [p.name]: v })} />
        ))}
        <button type="submit" disabled={action.busy}>
          Create record
        </button>
      </form>
      <ErrorBox error={action.error} />
      <ViewBar objectUuid={schema.data.object.uuid} state={tableState} open={view} onOpen={openView} />
      <form class="inline" onSubmit={addFilter} aria-label="Add a filter">
        <Select label="Filter on" name="filterKey" value={draft.key || props[0]?.name || ''} options={keys} onChange={(v) => setDraft({ ...draft, key: v })} />
        <Select label="Operator" name="filterOperator" value={draft.operator} options={[...operators]} onChange={(v) => setDraft({ ...draft, operator: v as Operator })} />
        <Field label="Value" name="filterValue" value={draft.value} onInput={(v) => setDraft({ ...draft, value: v })} />
        <button type="submit">Add filter</button>
      </form>
      {filters.length ? (
        <ul aria-label="Filters">
          {filters.map((f, i) => (
            <li key={i}>
              {f.key} {f.operator} {f.value}{' '}
              <button type="button" class="secondary" aria-label={`Remove filter ${f.key} ${f.operator} ${f.value}`} onClick={() => setFilters(filters.filter((_, j) => j !== i))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div class="row">
        <Field label="Search (free text)" name="query" value={query} onInput={(v) => (setQuery(v), setPageNo(0))} />
        <Select label="Sort by" name="sortKey" value={sort.key} options={[['createdAt', 'created'], ['updatedAt', 'updated'], ...keys]} onChange={(v) => setSort({ ...sort, key: v })} />
        <Select label="Direction" name="sortDirection" value={sort.direction} options={['asc', 'desc']} onChange={(v) => setSort({ ...sort, direction: v as 'asc' | 'desc' })} />
        <Select label="Archived" name="archived" value={archived} options={[['exclude', 'hide archived'], ['include', 'include archived'], ['only', 'archived only']]} onChange={(v) => (setArchived(v as 'exclude'), setPageNo(0))} />
        <Select label="Per page" name="limit" value={String(limit)} options={[...new Set(['10', '25', '50', '100', String(limit)])]} onChange={(v) => (setLimit(Number(v)), setPageNo(0))} />
        <Select label="Group by" name="groupBy" value={groupBy ?? ''} options={[['', 'no grouping'], ...selects.map((p): [string, string] => [p.name, p.label])]} onChange={(v) => setGroupBy(v || null)} />
      </div>
      {groups.length ? <p class="muted">This view also has {groups.length} filter groups (any of them matches).</p> : null}
      <ColumnChooser fields={fields} columns={shown} onChange={setColumns} />
      <ErrorBox error={records.error} />
      {!data ? <Loading what="records" /> : null}
      {data ? (
        <>
          <p aria-live="polite" data-testid="records-total">
            {data.total} records · page {data.page + 1} of {data.lastPage + 1}
          </p>
          <table aria-label={`Records of ${objectName}`}>
            <thead>
              <tr>
                <th scope="col">Record</th>
                {shown.map((c) => (
                  <th scope="col" key={c.key} style={c.width ? { width: `${c.width}px` } : undefined}>
                    {labelOf(c.key)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {grouped(data.items as Row[], groupBy).map(([heading, rows]) => (
                <Fragment key={heading ?? ''}>
                  {heading !== null ? (
                    <tr class="group">
                      <th scope="colgroup" colSpan={shown.length + 1}>
                        {labelOf(groupBy ?? '')}: {heading || '(none)'} <span class="muted">({rows.length})</span>
                      </th>
                    </tr>
                  ) : null}
                  {rows.map((r) => (
                    <tr key={r.uuid} class={r.deletedAt ? 'archived' : ''}>
                      <td>
                        <a href={`#/record/${r.uuid}`}>{r.label ?? r.name ?? r.uuid.slice(0, 8)}</a>
                      </td>
                      {shown.map((c) => (
                        <td key={c.key}>{cell(r as never, c.key)}</td>
                      ))}
                    </tr>
                  ))}
                </Fragment>
              ))}
            </tbody>
          </table>
          <nav class="row" aria-label="Pages">
            <button type="button" class="secondary" disabled={data.page <= 0} onClick={() => setPageNo(pageNo - 1)}>
              Previous page
            </button>
            <button type="button" class="secondary" disabled={data.page >= data.lastPage} onClick={() => setPageNo(pageNo + 1)}>
              Next page
            </button>
          </nav>
        </>
      ) : null}
    </>
  );
}

interface Row {
  uuid: string;
  label?: string | null;
  name?: string | null;
  deletedAt?: number | null;
  properties: unknown;
}

/** The page's records under a heading per value of the select property (in first-seen order); one group without a heading when not grouped. */
function grouped(rows: Row[], groupBy: string | null): [string | null, Row[]][] {
  if (!groupBy) return [[null, rows]];
  const out = new Map<string, Row[]>();
  for (const r of rows) {
    const key = show((r.properties as Record<string, unknown>)[groupBy]);
    out.set(key, [...(out.get(key) ?? []), r]);
  }
  return [...out];
}
