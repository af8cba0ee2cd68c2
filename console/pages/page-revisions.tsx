import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { go } from '../router.js';
import { ErrorBox, Field, Loading, Section, useAction, useData, when } from '../ui.js';

/** A webpage's revisions (CMS, docs/cms.md): who, when, requestId, the document at each, and restore. */
export function PageRevisions({ recordUuid, query }: { recordUuid?: string; query: URLSearchParams }) {
  const [draft, setDraft] = useState(recordUuid ?? '');
  const [locale, setLocale] = useState(query.get('locale') ?? 'en');
  const [environment, setEnvironment] = useState(query.get('environment') ?? '');
  return (
    <>
      <h1>Webpage revisions</h1>
      <form
        class="inline"
        aria-label="Open a webpage"
        onSubmit={(e) => {
          e.preventDefault();
          go(`#/pages/${encodeURIComponent(draft.trim())}?locale=${encodeURIComponent(locale)}${environment ? `&environment=${encodeURIComponent(environment)}` : ''}`);
        }}
      >
        <Field label="Record uuid of the page" name="pageRecord" value={draft} onInput={setDraft} required />
        <Field label="Locale" name="pageLocale" value={locale} onInput={setLocale} required />
        <Field label="Environment (empty: the default)" name="pageEnvironment" value={environment} onInput={setEnvironment} />
        <button type="submit">Open</button>
      </form>
      {recordUuid ? <Revisions recordUuid={recordUuid} where={{ locale: query.get('locale') ?? 'en', ...(query.get('environment') ? { environment: query.get('environment')! } : {}) }} /> : null}
    </>
  );
}

function Revisions({ recordUuid, where }: { recordUuid: string; where: { locale: string; environment?: string } }) {
  const page = useData(() => api.get('/api/v2/webpages/v2/pages/{recordUuid}', { params: { path: { recordUuid }, query: where } }), [recordUuid, where.locale, where.environment]);
  const history = useData(() => api.listPost('/api/v2/webpages/v2/pages/{recordUuid}/history/index', { params: { path: { recordUuid }, query: where }, body: { limit: 100 } }), [recordUuid, page.data]);
  const [index, setIndex] = useState<number | null>(null);
  const doc = useData(() => (index === null ? Promise.resolve(null) : api.get('/api/v2/webpages/v2/pages/{recordUuid}/history/{index}', { params: { path: { recordUuid, index }, query: where } })), [recordUuid, index]);
  const action = useAction();
  if (page.loading && !page.data) return <Loading what="the page" />;
  if (!page.data) return <ErrorBox error={page.error} />;
  const restore = (i: number) =>
    action.run(async () => {
      await api.post('/api/v2/webpages/v2/pages/{recordUuid}/history/{index}/restore', { params: { path: { recordUuid, index: i }, query: where } });
      page.reload();
    });
  return (
    <>
      <ErrorBox error={action.error ?? history.error} />
      <div class="cols">
        <Section title="Revisions">
          <ol class="timeline" aria-label="Revisions">
            {history.data?.items.map((h) => (
              <li key={h.index} class={h.index === index ? 'current' : ''}>
                <strong>
                  #{h.index} {h.kind}
                  {h.restoredFrom !== null ? ` from #${h.restoredFrom}` : ''}
                </strong>{' '}
                <span class="muted">
                  {when(h.at)} by {h.by?.uuid ?? 'the system'} · {h.ops.length} changes · requestId <a href={`#/events?requestId=${encodeURIComponent(h.requestId)}`}>{h.requestId}</a>
                </span>{' '}
                <button type="button" class="secondary" onClick={() => setIndex(h.index)}>
                  View #{h.index}
                </button>{' '}
                <button type="button" onClick={() => void restore(h.index)} disabled={action.busy}>
                  Restore #{h.index}
                </button>
              </li>
            ))}
          </ol>
        </Section>
        <Section title={index === null ? 'Current document' : `Document at #${index}`}>
          <ErrorBox error={doc.error} />
          <pre>{JSON.stringify(index === null ? page.data.document : doc.data?.document, null, 2)}</pre>
        </Section>
      </div>
    </>
  );
}
