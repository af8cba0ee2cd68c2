import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { objectByName, parseValue } from '../schema.js';
import { ErrorBox, Loading, Section, show, useAction, useData, when } from '../ui.js';

/** The audit shape of createdBy, updatedBy and a history entry's user. */
interface Actor {
  label?: string;
  name?: string;
  user?: { email?: string } | null;
}
const who = (a: Actor | null | undefined) => (a ? a.user?.email || a.label || a.name : 'the system');
const valuesOf = (r: { properties: unknown }) => (Array.isArray(r.properties) ? Object.fromEntries((r.properties as { name: string; value: unknown }[]).map((p) => [p.name, p.value])) : (r.properties as Record<string, unknown>));

/** One record: its values (edit), relations, files, history timeline, as-of view and restore. */
export function RecordPage({ uuid }: { uuid: string }) {
  const record = useData(() => api.get('/api/v2/records/{uuid}', { params: { path: { uuid }, query: {} } }), [uuid]);
  const objectName = record.data?.object;
  const schema = useData(() => (objectName ? objectByName(objectName) : Promise.resolve(null)), [objectName]);
  const history = useData(() => api.listGet('/api/v2/records/{uuid}/history', { params: { path: { uuid }, query: { limit: 100 } } }), [uuid, record.data?.revision]);
  const files = useData(() => api.listPost('/api/v2/files/records/{recordUuid}/index', { params: { path: { recordUuid: uuid } }, body: { limit: 100 } }), [uuid]);
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [asOfInput, setAsOfInput] = useState('0');
  const [asOf, setAsOf] = useState<number | null>(null);
  const past = useData(() => (asOf === null ? Promise.resolve(null) : api.get('/api/v2/records/{uuid}', { params: { path: { uuid }, query: { asOf: String(asOf) } } })), [uuid, asOf]);
  const action = useAction();
  const [notice, setNotice] = useState('');

  if (record.loading && !record.data) return <Loading what="the record" />;
  if (!record.data) return <ErrorBox error={record.error} />;
  const r = record.data;
  const current = valuesOf(r);
  const props = schema.data?.properties ?? [];
  const names = props.length ? props.map((p) => p.name) : Object.keys(current);
  const done = (text: string) => {
    setNotice(`${text} (requestId ${api.lastRequestId ?? '?'})`);
    setEdits({});
    record.reload();
  };
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const properties = Object.fromEntries(Object.entries(edits).map(([k, v]) => [k, parseValue(props.find((p) => p.name === k), v)]));
      await api.put('/api/v2/records/{uuid}', { params: { path: { uuid }, query: {} }, body: { properties, expectedRevision: r.revision } });
      done('Saved');
    });
  };
  const archive = () =>
    action.run(async () => {
      if (r.deletedAt) await api.post('/api/v2/records/{uuid}/restore', { params: { path: { uuid } } });
      else await api.delete('/api/v2/records/{uuid}', { params: { path: { uuid }, query: {} } });
      done(r.deletedAt ? 'Restored from the archive' : 'Archived');
    });
  const restoreRevision = () =>
    action.run(async () => {
      if (!past.data || asOf === null) return;
      const then = valuesOf(past.data);
      // The values as they were: each property of that revision, and null for any set since.
      const properties = Object.fromEntries([...new Set([...Object.keys(current), ...Object.keys(then)])].map((k) => [k, k in then ? then[k] : null]));
      await api.put('/api/v2/records/{uuid}', { params: { path: { uuid }, query: {} }, body: { properties, expectedRevision: r.revision } });
      done(`Restored the values of revision ${asOf}`);
    });
  return (
    <>
      <h1>
        Record {r.label ?? r.name ?? r.uuid} <span class="muted">({r.object})</span>
      </h1>
      <p class="muted">
        uuid {r.uuid} · revision <span data-testid="revision">{r.revision}</span> · created {when(r.createdAt)} by {who(r.createdBy)} · updated {when(r.updatedAt)} by {who(r.updatedBy)}
        {r.deletedAt ? ` · archived ${when(r.deletedAt)} by ${who(r.deletedBy)}` : ''}
      </p>
      <p>
        <a href={`#/records/${r.object}`}>All records of {r.object}</a> ·{' '}
        <button type="button" class="secondary" onClick={() => void archive()}>
          {r.deletedAt ? 'Restore from archive' : 'Archive'}
        </button>{' '}
        · <a href={`#/pages/${r.uuid}`}>Webpage revisions</a>
      </p>
      {notice ? (
        <p class="notice" role="status" data-testid="notice">
          {notice}
        </p>
      ) : null}
      <ErrorBox error={action.error} />
      <div class="cols">
        <div>
          <Section title="Values">
            <form onSubmit={save} aria-label="Edit values">
              <table>
                <tbody>
                  {names.map((name) => {
                    const p = props.find((x) => x.name === name);
                    return (
                      <tr key={name}>
                        <th scope="row">
                          <label for={`value-${name}`}>{p?.label ?? name}</label>
                        </th>
                        <td>
                          <input id={`value-${name}`} name={name} value={edits[name] ?? show(current[name])} onInput={(e) => setEdits({ ...edits, [name]: (e.currentTarget as HTMLInputElement).value })} />
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
              <button type="submit" disabled={action.busy || Object.keys(edits).length === 0}>
                Save
              </button>
            </form>
          </Section>
          <Section title="Relations">
            {r.relations.length === 0 ? <p class="muted">No related records.</p> : null}
            <ul>
              {r.relations.map((rel) => (
                <li key={`${rel.relationUuid}-${rel.uuid}`}>
                  {rel.relationName}: <a href={`#/record/${rel.uuid}`}>{rel.objectName ?? ''} {rel.uuid.slice(0, 8)}</a>
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Files">
            <ErrorBox error={files.error} />
            {files.data?.items.length === 0 ? <p class="muted">No files.</p> : null}
            <ul>
              {files.data?.items.map((f) => (
                <li key={f.uuid}>
                  {f.name} <span class="muted">({f.property}, {f.contentType}, {f.size} bytes)</span>
                </li>
              ))}
            </ul>
          </Section>
        </div>
        <div>
          <Section title="As of">
            <form
              class="inline"
              aria-label="View as of a revision"
              onSubmit={(e) => {
                e.preventDefault();
                setAsOf(Number(asOfInput));
              }}
            >
              <label>
                Revision
                <select name="asOf" value={asOfInput} onChange={(e) => setAsOfInput((e.currentTarget as HTMLSelectElement).value)}>
                  {Array.from({ length: r.revision + 1 }, (_, i) => (
                    <option key={i} value={String(i)}>
                      {i}
                      {i === r.revision ? ' (current)' : ''}
                    </option>
                  ))}
                </select>
              </label>
              <button type="submit">View as of</button>
            </form>
            <ErrorBox error={past.error} />
            {past.data && asOf !== null ? (
              <div data-testid="as-of">
                <p>
                  As of revision {asOf} ({when(past.data.updatedAt)}){past.data.deletedAt ? ', archived' : ''}:
                </p>
                <table aria-label={`Values as of revision ${asOf}`}>
                  <tbody>
                    {names.map((name) => (
                      <tr key={name}>
                        <th scope="row">{name}</th>
                        <td>{show(valuesOf(past.data!)[name])}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <button type="button" onClick={() => void restoreRevision()} disabled={action.busy || asOf === r.revision}>
                  Restore revision {asOf}
                </button>
              </div>
            ) : null}
          </Section>
          <Section title="History">
            <ErrorBox error={history.error} />
            <ol class="timeline" aria-label="History">
              {history.data?.items.map((h) => (
                <li key={h.revision} class={h.revision === asOf ? 'current' : ''}>
                  <strong>
                    #{h.revision} {h.type}
                  </strong>{' '}
                  <span class="muted">
                    {when(h.occurredAt)} by {who(h.user)}
                  </span>
                  <ul>
                    {Object.entries(h.changes).map(([k, c]) => (
                      <li key={k}>
                        {k}: <del>{show(c.before)}</del> → <ins>{show(c.after)}</ins>
                      </li>
                    ))}
                  </ul>
                  <span class="muted">
                    requestId <a href={`#/events?requestId=${encodeURIComponent(h.requestId)}`} data-testid="history-request-id">{h.requestId}</a>
                  </span>{' '}
                  <button type="button" class="secondary" onClick={() => (setAsOfInput(String(h.revision)), setAsOf(h.revision))} aria-label={`View as of revision ${h.revision}`}>
                    View
                  </button>
                </li>
              ))}
            </ol>
          </Section>
        </div>
      </div>
    </>
  );
}
