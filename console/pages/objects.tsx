import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { ErrorBox, Field, Loading, Section, Select, useAction, useData, when } from '../ui.js';

const deletedOnly = [{ key: 'deletedAt', operator: 'isnotnull' as const }];

/** The company's objects: create, soft delete, restore; links to each one's schema and records. */
export function Objects() {
  const [showDeleted, setShowDeleted] = useState(false);
  const list = useData(() => api.listPost('/api/v2/objects/index', { body: { limit: 100, sort: [{ key: 'name', direction: 'asc' }], filters: showDeleted ? deletedOnly : [] } }), [showDeleted]);
  const [name, setName] = useState('');
  const [label, setLabel] = useState('');
  const action = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await api.post('/api/v2/objects', { body: { name, label: label || name } });
      setName('');
      setLabel('');
      list.reload();
    });
  };
  const act = (uuid: string, what: 'delete' | 'restore') =>
    action.run(async () => {
      if (what === 'delete') await api.delete('/api/v2/objects/{uuid}', { params: { path: { uuid } } });
      else await api.post('/api/v2/objects/{uuid}/restore', { params: { path: { uuid } } });
      list.reload();
    });
  return (
    <>
      <h1>Objects</h1>
      <form class="inline" onSubmit={create} aria-label="New object">
        <Field label="Name (lowercase identifier)" name="objectName" value={name} onInput={setName} required />
        <Field label="Label" name="objectLabel" value={label} onInput={setLabel} />
        <button type="submit" disabled={action.busy}>
          Create object
        </button>
      </form>
      <label style="flex-direction: row; gap: 0.4rem">
        <input type="checkbox" checked={showDeleted} onChange={(e) => setShowDeleted((e.currentTarget as HTMLInputElement).checked)} /> Show deleted objects only
      </label>
      <ErrorBox error={action.error} />
      {list.loading && !list.data ? <Loading what="objects" /> : null}
      <ErrorBox error={list.error} />
      {list.data ? (
        <table aria-label="Objects">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Label</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((o) => (
              <tr key={o.uuid} class={o.deleted ? 'archived' : ''}>
                <td>
                  <a href={`#/objects/${o.uuid}`}>{o.name}</a>
                </td>
                <td>{o.label}</td>
                <td>{when(o.updatedAt)}</td>
                <td>
                  {o.deleted ? (
                    <button type="button" class="secondary" onClick={() => void act(o.uuid, 'restore')}>
                      Restore {o.name}
                    </button>
                  ) : (
                    <>
                      <a href={`#/records/${o.name}`}>Records</a>{' '}
                      <button type="button" class="secondary" onClick={() => void act(o.uuid, 'delete')} aria-label={`Delete object ${o.name}`}>
                        Delete
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

const formats: [string, string][] = [
  ['text', 'string / text'],
  ['textarea', 'string / textarea'],
  ['email', 'string / email'],
  ['url', 'string / url'],
  ['number', 'number / number'],
  ['date', 'date / date'],
  ['checkbox', 'boolean / checkbox'],
];
const typeOf: Record<string, string> = { text: 'string', textarea: 'string', email: 'string', url: 'string', number: 'number', date: 'date', checkbox: 'boolean' };

/** One object: its properties, relations and traits. */
export function ObjectDetail({ uuid }: { uuid: string }) {
  const object = useData(() => api.get('/api/v2/objects/{uuid}', { params: { path: { uuid } } }), [uuid]);
  const [deleted, setDeleted] = useState(false);
  const props = useData(() => api.listPost('/api/v2/objects/{objectUuid}/properties/index', { params: { path: { objectUuid: uuid } }, body: { limit: 100, filters: deleted ? deletedOnly : [] } }), [uuid, deleted]);
  const relations = useData(() => api.listPost('/api/v2/relations/index/{objectUuid}', { params: { path: { objectUuid: uuid } }, body: { limit: 100, filters: deleted ? deletedOnly : [] } }), [uuid, deleted]);
  const traits = useData(() => api.listGet('/api/v2/traits/{objectUuid}', { params: { path: { objectUuid: uuid } } }), [uuid]);
  const objects = useData(() => api.listPost('/api/v2/objects/index', { body: { limit: 100 } }), []);
  const action = useAction();
  const [prop, setProp] = useState({ name: '', label: '', format: 'text' });
  const [rel, setRel] = useState({ name: '', to: '', cardinality: 'MANY_TO_MANY' });
  const [trait, setTrait] = useState({ name: 'Table', config: '{}' });

  if (object.loading && !object.data) return <Loading what="the object" />;
  if (!object.data) return <ErrorBox error={object.error} />;
  const o = object.data;
  const addProperty = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await api.post('/api/v2/objects/{objectUuid}/properties', { params: { path: { objectUuid: uuid } }, body: { name: prop.name, label: prop.label || prop.name, type: typeOf[prop.format] as 'string', format: prop.format as 'text' } });
      setProp({ ...prop, name: '', label: '' });
      props.reload();
    });
  };
  const addRelation = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await api.post('/api/v2/relations/{objectUuid}', { params: { path: { objectUuid: uuid } }, body: { name: rel.name, toObjectUuid: rel.to, cardinality: rel.cardinality as 'MANY_TO_MANY' } });
      setRel({ ...rel, name: '' });
      relations.reload();
    });
  };
  const addTrait = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await api.post('/api/v2/traits/{objectUuid}/{traitName}', { params: { path: { objectUuid: uuid, traitName: trait.name } }, body: JSON.parse(trait.config || '{}') as never });
      traits.reload();
    });
  };
  const run = (f: () => Promise<unknown>, then: () => void) => action.run(async () => (await f(), then()));
  return (
    <>
      <h1>
        Object {o.label} <span class="muted">({o.name})</span>
      </h1>
      <p>
        <a href={`#/records/${o.name}`}>Records of {o.name}</a> · revision {o.revision} · updated {when(o.updatedAt)}
      </p>
      <label style="flex-direction: row; gap: 0.4rem">
        <input type="checkbox" checked={deleted} onChange={(e) => setDeleted((e.currentTarget as HTMLInputElement).checked)} /> Show deleted properties and relations only
      </label>
      <ErrorBox error={action.error} />
      <Section title="Properties">
        <ErrorBox error={props.error} />
        <table aria-label="Properties">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Label</th>
              <th scope="col">Type / format</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.data?.items.map((p) => (
              <tr key={p.uuid} class={p.deletedAt ? 'archived' : ''}>
                <td>{p.name}</td>
                <td>{p.label}</td>
                <td>
                  {p.type} / {p.format}
                </td>
                <td>
                  {p.deletedAt ? (
                    <button type="button" class="secondary" onClick={() => void run(() => api.post('/api/v2/objects/{objectUuid}/properties/{propertyUuid}/restore', { params: { path: { objectUuid: uuid, propertyUuid: p.uuid } } }), props.reload)}>
                      Restore property {p.name}
                    </button>
                  ) : (
                    <button type="button" class="secondary" aria-label={`Delete property ${p.name}`} onClick={() => void run(() => api.delete('/api/v2/objects/{objectUuid}/properties/{propertyUuid}', { params: { path: { objectUuid: uuid, propertyUuid: p.uuid } } }), props.reload)}>
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <form class="inline" onSubmit={addProperty} aria-label="New property">
          <Field label="Property name" name="propertyName" value={prop.name} onInput={(v) => setProp({ ...prop, name: v })} required />
          <Field label="Property label" name="propertyLabel" value={prop.label} onInput={(v) => setProp({ ...prop, label: v })} />
          <Select label="Type / format" name="propertyFormat" value={prop.format} options={formats} onChange={(v) => setProp({ ...prop, format: v })} />
          <button type="submit" disabled={action.busy}>
            Add property
          </button>
        </form>
      </Section>
      <Section title="Relations">
        <ErrorBox error={relations.error} />
        <ul>
          {relations.data?.items.map((r) => (
            <li key={r.uuid} class={r.deletedAt ? 'archived' : ''}>
              {r.name} <span class="muted">({r.cardinality}, to {objects.data?.items.find((x) => x.uuid === r.toObjectUuid)?.name ?? r.toObjectUuid})</span>{' '}
              {r.deletedAt ? (
                <button type="button" class="secondary" onClick={() => void run(() => api.post('/api/v2/relations/{relationUuid}/restore', { params: { path: { relationUuid: r.uuid } } }), relations.reload)}>
                  Restore relation {r.name}
                </button>
              ) : (
                <button type="button" class="secondary" aria-label={`Delete relation ${r.name}`} onClick={() => void run(() => api.delete('/api/v2/relations/{relationUuid}', { params: { path: { relationUuid: r.uuid } } }), relations.reload)}>
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
        <form class="inline" onSubmit={addRelation} aria-label="New relation">
          <Field label="Relation name" name="relationName" value={rel.name} onInput={(v) => setRel({ ...rel, name: v })} required />
          <Select label="To object" name="relationTo" value={rel.to} options={[['', '—'], ...(objects.data?.items.map((x): [string, string] => [x.uuid, x.name]) ?? [])]} onChange={(v) => setRel({ ...rel, to: v })} />
          <Select label="Cardinality" name="relationCardinality" value={rel.cardinality} options={['ONE_TO_ONE', 'ONE_TO_MANY', 'MANY_TO_ONE', 'MANY_TO_MANY']} onChange={(v) => setRel({ ...rel, cardinality: v })} />
          <button type="submit" disabled={action.busy}>
            Add relation
          </button>
        </form>
      </Section>
      <Section title="Traits">
        <ErrorBox error={traits.error} />
        <ul>
          {traits.data?.items.map((t) => (
            <li key={t.traitName}>
              {t.traitName} <code>{JSON.stringify(t.details ?? {})}</code>{' '}
              <button type="button" class="secondary" aria-label={`Remove trait ${t.traitName}`} onClick={() => void run(() => api.delete('/api/v2/traits/{objectUuid}/{traitName}', { params: { path: { objectUuid: uuid, traitName: t.traitName } } }), traits.reload)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
        <form class="inline" onSubmit={addTrait} aria-label="Add a trait">
          <Select label="Trait" name="traitName" value={trait.name} options={['Table', 'Flow', 'Page', 'User']} onChange={(v) => setTrait({ ...trait, name: v })} />
          <label>
            Details (JSON)
            <textarea name="traitConfig" rows={2} cols={40} value={trait.config} onInput={(e) => setTrait({ ...trait, config: (e.currentTarget as HTMLTextAreaElement).value })} />
          </label>
          <button type="submit" disabled={action.busy}>
            Set trait
          </button>
        </form>
      </Section>
    </>
  );
}
