// The Gw web UI (docs/ui.md): read-only views of what this proxy serves, and an MCP playground.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { setAdminToken } from './api.js';
import { PlaygroundView } from './playground.js';
import { SnippetsView } from './snippets.js';
import { AccessLogView, ChartsView } from './live.js';
import { CelPlaygroundView, LlmPlaygroundView } from './try.js';
import { ListenersView, LlmViewPage, McpTargetsView, OverviewView, RoutesView } from './views.js';

// The live views and the LLM and CEL playgrounds (a block of their own, so other views merge beside it).
const LIVE_PAGES = {
  charts: { title: 'Charts', view: ChartsView },
  'access-log': { title: 'Access log', view: AccessLogView },
  'llm-playground': { title: 'LLM playground', view: LlmPlaygroundView },
  cel: { title: 'CEL playground', view: CelPlaygroundView },
} as const;

const PAGES = {
  overview: { title: 'Overview', view: OverviewView },
  routes: { title: 'Routes', view: RoutesView },
  listeners: { title: 'Listeners & backends', view: ListenersView },
  mcp: { title: 'MCP', view: McpTargetsView },
  llm: { title: 'LLM', view: LlmViewPage },
  playground: { title: 'MCP playground', view: PlaygroundView },
  clients: { title: 'Client setup', view: SnippetsView },
  ...LIVE_PAGES,
} as const;
type Page = keyof typeof PAGES;

const pageOfHash = (): Page => {
  const h = location.hash.slice(1);
  return h in PAGES ? (h as Page) : 'overview';
};

function App() {
  const [page, setPage] = useState<Page>(pageOfHash);
  const [token, setToken] = useState('');
  // Remounting the view after a token change fetches again with it.
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const follow = (): void => setPage(pageOfHash());
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const View = PAGES[page].view;
  const go = (p: Page): void => {
    location.hash = p;
    setPage(p);
  };
  return (
    <>
      <header>
        <h1>Gw</h1>
        <nav>
          {(Object.keys(PAGES) as Page[]).map((p) => (
            <button key={p} data-page={p} aria-current={p === page ? 'page' : undefined} onClick={() => go(p)}>
              {PAGES[p].title}
            </button>
          ))}
        </nav>
        <form
          class="token"
          onSubmit={(e) => {
            e.preventDefault();
            setAdminToken(token);
            setGeneration((g) => g + 1);
          }}
        >
          <input
            type="password"
            name="admin-token"
            autocomplete="off"
            placeholder="admin token (off loopback)"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          />
        </form>
      </header>
      <main key={`${page} ${generation}`}>
        <View />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
