// The web console (docs/console.md): one page, its routes in the hash, every call through the
// typed client (client/). Bundled by scripts/build-console.mjs.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onSession, session, signOut } from './session.js';
import { go, useRoute } from './router.js';
import { SelectCompany, SignIn } from './pages/sign-in.js';
import { ObjectDetail, Objects } from './pages/objects.js';
import { Records } from './pages/records.js';
import { RecordPage } from './pages/record.js';
import { Events } from './pages/events.js';
import { Webhooks } from './pages/webhooks.js';
import { Charts } from './pages/charts.js';
import { PageRevisions } from './pages/page-revisions.js';

function Page() {
  const { path, query } = useRoute();
  const s = session();
  if (!s.token) return <SignIn />;
  const [first, second] = path;
  if (first === 'company' || !s.companyUuid) return <SelectCompany />;
  switch (first) {
    case 'objects':
      return second ? <ObjectDetail uuid={second} /> : <Objects />;
    case 'records':
      return second ? <Records key={second} objectName={second} /> : <Objects />;
    case 'record':
      return <RecordPage uuid={second!} />;
    case 'events':
      return <Events query={query} />;
    case 'webhooks':
      return <Webhooks />;
    case 'charts':
      return <Charts />;
    case 'pages':
      return <PageRevisions recordUuid={second} query={query} />;
    default:
      return <Objects />;
  }
}

function App() {
  const [, setTick] = useState(0);
  useEffect(() => onSession(() => setTick((n) => n + 1)), []);
  const route = useRoute();
  const s = session();
  // Focus the page's heading after a navigation, so keyboard and screen-reader users land on it.
  useEffect(() => {
    const h1 = document.querySelector('main h1') as HTMLElement | null;
    if (h1) {
      h1.tabIndex = -1;
      h1.focus();
    }
  }, [route.path.join('/')]);
  return (
    <>
      <header class="top">
        <strong>Platform console</strong>
        {s.token ? (
          <nav aria-label="Main">
            <ul>
              <li>
                <a href="#/objects">Objects</a>
              </li>
              <li>
                <a href="#/events">Event log</a>
              </li>
              <li>
                <a href="#/webhooks">Webhooks</a>
              </li>
              <li>
                <a href="#/charts">Charts</a>
              </li>
              <li>
                <a href="#/pages">Webpages</a>
              </li>
            </ul>
          </nav>
        ) : null}
        {s.token ? (
          <span class="who">
            {s.email} · <a href="#/company">{s.companyName ?? 'select a company'}</a>{' '}
            <button
              type="button"
              class="secondary"
              onClick={() => {
                signOut();
                go('#/');
              }}
            >
              Sign out
            </button>
          </span>
        ) : null}
      </header>
      <main>
        <Page />
      </main>
    </>
  );
}

const mount = document.getElementById('app')!;
mount.textContent = '';
render(<App />, mount);
