// The Gw web UI (docs/ui.md): read-only views of what this proxy serves, an MCP playground and the caller's
// catalog; served by the controller, the fleet view.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { setAdminToken } from './api.js';
import { PlaygroundView } from './playground.js';
import { SnippetsView } from './snippets.js';
import { AccessLogView, ChartsView } from './live.js';
import { CelPlaygroundView, LlmPlaygroundView } from './try.js';
import { ListenersView, LlmViewPage, McpTargetsView, OverviewView, RoutesView } from './views.js';
import { CatalogView } from './catalog.js';
import { FleetView, roleOf } from './fleet.js';

// The live views and the LLM and CEL playgrounds (a block of their own, so other views merge beside it).
const LIVE_PAGES = {
  charts: { title: 'Charts', view: ChartsView },
  'access-log': { title: 'Access log', view: AccessLogView },
  'llm-playground': { title: 'LLM playground', view: LlmPlaygroundView },
  cel: { title: 'CEL playground', view: CelPlaygroundView },
} as const;

const PROXY_PAGES = {
  overview: { title: 'Overview', view: OverviewView },
  routes: { title: 'Routes', view: RoutesView },
  listeners: { title: 'Listeners & backends', view: ListenersView },
  mcp: { title: 'MCP', view: McpTargetsView },
  llm: { title: 'LLM', view: LlmViewPage },
  playground: { title: 'MCP playground', view: PlaygroundView },
  clients: { title: 'Client setup', view: SnippetsView },
  ...LIVE_PAGES,
} as const;

// The caller's catalog (proxy) and the fleet view (controller): docs/ui.md "Fleet view".
const CATALOG_PAGES = {
  catalog: { title: 'MCP catalog', view: CatalogView },
} as const;
const CONTROLLER_PAGES = {
  fleet: { title: 'Fleet', view: FleetView },
} as const;

const PAGES = { ...PROXY_PAGES, ...CATALOG_PAGES, ...CONTROLLER_PAGES };
type Page = keyof typeof PAGES;
const PAGES_OF: Record<string, Page[]> = {
  proxy: [...(Object.keys(PROXY_PAGES) as Page[]), ...(Object.keys(CATALOG_PAGES) as Page[])],
  controller: Object.keys(CONTROLLER_PAGES) as Page[],
};

/** The hash's page when this role has it, else the role's first page. */
const pageOfHash = (role: string): Page => {
  const h = location.hash.slice(1);
  const pages = PAGES_OF[role] ?? PAGES_OF.proxy!;
  return pages.includes(h as Page) ? (h as Page) : pages[0]!;
};

function App() {
  // A proxy's admin address until its overview says otherwise (an API asking for a token answers after it is given).
  const [role, setRole] = useState('proxy');
  const [page, setPage] = useState<Page>(() => pageOfHash('proxy'));
  const [token, setToken] = useState('');
  // Remounting the view after a token change fetches again with it.
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    roleOf().then(
      (r) => {
        setRole(r);
        setPage(pageOfHash(r));
      },
      () => undefined,
    );
  }, [generation]);
  useEffect(() => {
    const follow = (): void => setPage(pageOfHash(role));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, [role]);
  const View = PAGES[page].view;
  const go = (p: Page): void => {
    location.hash = p;
    setPage(p);
  };
  return (
    <>
      <header>
        <h1>{role === 'controller' ? 'Gw controller' : 'Gw'}</h1>
        <nav>
          {(PAGES_OF[role] ?? []).map((p) => (
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
