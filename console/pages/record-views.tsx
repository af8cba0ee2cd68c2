// The records table's saved views (docs/views.md): the picker, save, save as new, delete, and the
// column chooser. The records page owns the table's state; a view is read into it and written from it.
import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { ErrorBox, Field, Select, useAction, useData } from '../ui.js';

/** What the console reads of a view (docs/views.md). */
export interface View {
  uuid: string;
  name: string;
  sharing: string;
  columns: Column[];
  filters: unknown[];
  groups: unknown[];
  sort: { key: string; direction: string }[];
  pageSize: number;
  groupBy: string | null;
}
export interface Column {
  key: string;
  width: number | null;
}
/** What a view holds of the table, as the records page keeps it. */
export interface TableState {
  columns: Column[];
  filters: { key: string; operator: string; value?: unknown }[];
  groups: unknown[];
  sort: { key: string; direction: 'asc' | 'desc' };
  pageSize: number;
  groupBy: string | null;
}

export const systemFields: [string, string][] = [
  ['uuid', 'UUID'],
  ['createdAt', 'Created'],
  ['updatedAt', 'Updated'],
  ['createdBy', 'Created by'],
  ['updatedBy', 'Updated by'],
];

/** The picker and the buttons: `onOpen` applies a view (or none) to the table. */
export function ViewBar(props: { objectUuid: string; state: () => TableState; open: View | null; onOpen: (view: View | null) => void }) {
  const { objectUuid, open, onOpen } = props;
  const views = useData(() => api.listPost('/api/v2/views/index/{objectUuid}', { params: { path: { objectUuid } }, body: { limit: 100 } }), [objectUuid]);
  const teams = useData(() => api.listPost('/api/v2/teams/index', { body: { limit: 100 } }).catch(() => ({ items: [] as { uuid: string; name: string }[] })), []);
  const [name, setName] = useState('');
  const [sharing, setSharing] = useState<'personal' | 'company' | 'team'>('personal');
  const [teamUuid, setTeamUuid] = useState('');
  const [notice, setNotice] = useState('');
  const action = useAction();
  const list = views.data?.items ?? [];
  const body = () => {
    const s = props.state();
    return { columns: s.columns, filters: s.filters, groups: s.groups, sort: [s.sort], pageSize: s.pageSize, groupBy: s.groupBy } as never;
  };
  const pick = (uuid: string) => {
    setNotice('');
    onOpen(list.find((v) => v.uuid === uuid) ?? null);
  };
  const save = () =>
    void action.run(async () => {
      if (!open) return;
      const saved = await api.put('/api/v2/views/{uuid}', { params: { path: { uuid: open.uuid } }, body: body() });
      onOpen(saved as View);
      views.reload();
      setNotice(`Saved view ${open.name}`);
    });
  const saveAs = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const created = await api.post('/api/v2/views', {
        body: { ...(body() as object), name, objectUuid, sharing, ...(sharing === 'team' ? { teamUuid } : {}) } as never,
      });
      onOpen(created as View);
      views.reload();
      setName('');
      setNotice(`Created view ${name}`);
    });
  };
  const remove = () =>
    void action.run(async () => {
      if (!open) return;
      await api.delete('/api/v2/views/{uuid}', { params: { path: { uuid: open.uuid } } });
      onOpen(null);
      views.reload();
      setNotice(`Deleted view ${open.name}`);
    });
  return (
    <section aria-label="Views">
      <div class="row">
        <Select
          label="View"
          name="view"
          value={open?.uuid ?? ''}
          options={[['', '(no view: every column)'], ...list.map((v): [string, string] => [v.uuid, `${v.name} (${v.sharing})`])]}
          onChange={pick}
        />
        <button type="button" disabled={!open || action.busy} onClick={save} aria-label={open ? `Save view ${open.name}` : 'Save view'}>
          Save view
        </button>
        <button type="button" class="secondary" disabled={!open || action.busy} onClick={remove} aria-label={open ? `Delete view ${open.name}` : 'Delete view'}>
          Delete view
        </button>
      </div>
      <form class="inline" onSubmit={saveAs} aria-label="Save as new view">
        <Field label="New view name" name="viewName" value={name} onInput={setName} required />
        <Select label="Shared with" name="viewSharing" value={sharing} options={[['personal', 'only me'], ['company', 'the company'], ['team', 'a team']]} onChange={(v) => setSharing(v as 'personal')} />
        {sharing === 'team' ? (
          <Select label="Team" name="viewTeam" value={teamUuid} options={[['', '—'], ...(teams.data?.items ?? []).map((t): [string, string] => [t.uuid, t.name])]} onChange={setTeamUuid} />
        ) : null}
        <button type="submit" disabled={action.busy}>
          Save as new view
        </button>
      </form>
      {notice ? (
        <p role="status" data-testid="view-notice">
          {notice}
        </p>
      ) : null}
      <ErrorBox error={action.error ?? views.error} />
    </section>
  );
}

/** The visible columns: a box per property and system field, its width, and moving it left. */
export function ColumnChooser(props: { fields: [string, string][]; columns: Column[]; onChange: (columns: Column[]) => void }) {
  const { columns, onChange } = props;
  const [open, setOpen] = useState(false);
  const shown = new Map(columns.map((c, i) => [c.key, i]));
  const toggle = (key: string) => onChange(shown.has(key) ? columns.filter((c) => c.key !== key) : [...columns, { key, width: null }]);
  const width = (key: string, text: string) => onChange(columns.map((c) => (c.key === key ? { key, width: text === '' ? null : Number(text) } : c)));
  const left = (i: number) => onChange(columns.map((c, j) => (j === i - 1 ? columns[i]! : j === i ? columns[i - 1]! : c)));
  const labelOf = (key: string) => props.fields.find(([k]) => k === key)?.[1] ?? key;
  return (
    <div>
      <button type="button" class="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
        Columns
      </button>
      {open ? (
        <fieldset>
          <legend>Visible columns, in order</legend>
          <ol aria-label="Column order">
            {columns.map((c, i) => (
              <li key={c.key}>
                {labelOf(c.key)}{' '}
                <label>
                  Width of {labelOf(c.key)} (px)
                  <input name={`width-${c.key}`} type="number" min={20} max={4000} value={c.width ?? ''} onInput={(e) => width(c.key, (e.currentTarget as HTMLInputElement).value)} />
                </label>{' '}
                <button type="button" class="secondary" disabled={i === 0} onClick={() => left(i)} aria-label={`Move ${labelOf(c.key)} left`}>
                  Move left
                </button>
              </li>
            ))}
          </ol>
          {props.fields.map(([key, label]) => (
            <label key={key} class="check">
              <input type="checkbox" name={`column-${key}`} checked={shown.has(key)} onChange={() => toggle(key)} /> {label}
            </label>
          ))}
        </fieldset>
      ) : null}
    </div>
  );
}
