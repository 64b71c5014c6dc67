// The MCP playground: a client of a route, from this browser, through the route's normal pipeline. The
// pasted token goes to the route only (never to the admin API) and lives in this page's memory.
import { useState } from 'preact/hooks';
import type { SnapshotView } from './api.js';
import { listAll, McpClient, type Exchange } from './mcp-client.js';
import { SchemaForm, type InputSchema } from './schema-form.js';
import { Loading, useApi } from './views.js';

export interface Tool {
  name: string;
  description?: string;
  inputSchema?: InputSchema;
}

/**
 * `http://<host>:<the route's port><its path>` for each route to an MCP backend. The host is the route's (or its
 * listener's) first exact host name, so the call matches that route and not a catch-all beside it; this page's
 * host only when neither names one. The URL stays editable and is shown before the token is sent.
 */
export function mcpRouteUrls(s: SnapshotView, host: string): { route: string; url: string }[] {
  return routeUrls(s, host, 'mcp');
}

/** The same for the routes to backends of `kind` (`mcp`, `ai`). */
export function routeUrls(s: SnapshotView, host: string, kind: string): { route: string; url: string }[] {
  const mcp = new Set(s.backends.filter((b) => b.kind === kind).map((b) => b.name));
  const out: { route: string; url: string }[] = [];
  for (const r of s.routes) {
    if (!r.backends.some((b) => mcp.has(b.backend))) continue;
    const listener = s.listeners.find((l) => r.listeners.includes(l.name));
    const bind = s.binds.find((b) => b.name === listener?.bind);
    const path = /^(?:PathPrefix|Exact) (\/\S*)/.exec(r.matches[0] ?? '')?.[1] ?? '/';
    const scheme = listener?.protocol === 'HTTPS' ? 'https' : 'http';
    const exact = [...r.hostnames, ...(listener?.hostnames ?? [])].find((h) => h !== '' && !h.includes('*'));
    out.push({ route: r.name, url: `${scheme}://${exact ?? host}:${bind?.port ?? 80}${path}` });
  }
  return out;
}

export function Connect(props: {
  routes: { route: string; url: string }[];
  onConnected: (c: McpClient, tools: Tool[]) => void | Promise<void>;
  log: (e: Exchange) => void;
  label?: string;
  /** Called as a new connection starts, so a view drops what an earlier token saw. */
  onStart?: () => void;
}) {
  const [url, setUrl] = useState(props.routes[0]?.url ?? '');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const connect = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError('');
    props.onStart?.();
    try {
      const client = new McpClient(url, token, props.log);
      await client.initialize();
      await props.onConnected(client, (await listAll(client, 'tools/list', 'tools')) as Tool[]);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void connect(e)} data-testid="connect-form">
      <RouteFields routes={props.routes} url={url} token={token} onUrl={setUrl} onToken={setToken} />
      <button class="action" type="submit" disabled={busy || url === ''}>
        {props.label ?? 'Initialize and list tools'}
      </button>
      {error ? <p class="bad" data-testid="connect-error">{error}</p> : null}
    </form>
  );
}

/**
 * A playground's route fields: the route (choosing one sets the URL, through `urlOf`), its URL, and the bearer
 * token, which stays in this page and goes to the route only.
 */
export function RouteFields(props: {
  routes: { route: string; url: string }[];
  url: string;
  token: string;
  onUrl(url: string): void;
  onToken(token: string): void;
  urlOf?: (routeUrl: string) => string;
}) {
  const value = (e: Event): string => (e.target as HTMLInputElement).value;
  return (
    <>
      <label>
        <span>Route</span>
        <select name="route" onChange={(e) => props.onUrl((props.urlOf ?? String)(value(e)))}>
          {props.routes.map((r) => (
            <option key={r.route} value={r.url}>
              {r.route}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>URL</span>
        <input type="text" name="url" value={props.url} onInput={(e) => props.onUrl(value(e))} />
      </label>
      <label>
        <span>Bearer token</span>
        <input
          type="password"
          name="token"
          autocomplete="off"
          value={props.token}
          placeholder="sent to the route only"
          onInput={(e) => props.onToken(value(e))}
        />
      </label>
    </>
  );
}

function Tools(props: { client: McpClient; tools: Tool[] }) {
  const [chosen, setChosen] = useState<Tool | undefined>(props.tools[0]);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string>('');
  const call = async (args: Record<string, unknown>): Promise<void> => {
    if (!chosen) return;
    setBusy(true);
    try {
      const r = await props.client.request('tools/call', { name: chosen.name, arguments: args });
      setResult(JSON.stringify(r, null, 2));
    } catch (err) {
      setResult((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div>
      <label>
        <span>Tool ({props.tools.length})</span>
        <select
          name="tool"
          data-testid="tool-select"
          onChange={(e) => {
            setChosen(props.tools.find((t) => t.name === (e.target as HTMLSelectElement).value));
            setResult('');
          }}
        >
          {props.tools.map((t) => (
            <option key={t.name} value={t.name}>
              {t.name}
            </option>
          ))}
        </select>
      </label>
      {chosen ? (
        <>
          <p class="muted">{chosen.description}</p>
          <SchemaForm key={chosen.name} schema={chosen.inputSchema ?? {}} busy={busy} onSubmit={(a) => void call(a)} />
        </>
      ) : null}
      {result ? <pre data-testid="tool-result">{result}</pre> : null}
    </div>
  );
}

export function PlaygroundView() {
  const state = useApi<SnapshotView>('snapshot');
  const [conn, setConn] = useState<{ client: McpClient; tools: Tool[] }>();
  const [log, setLog] = useState<Exchange[]>([]);
  const record = (e: Exchange): void => setLog((l) => [...l, e]);
  return (
    <Loading state={state}>
      {(s) => (
        <div class="cols">
          <section data-testid="playground">
            <h2>MCP playground</h2>
            <Connect routes={mcpRouteUrls(s, location.hostname)} log={record} onConnected={(client, tools) => setConn({ client, tools })} />
            {conn ? <Tools client={conn.client} tools={conn.tools} /> : null}
          </section>
          <section data-testid="rpc-log">
            <h2>Raw JSON-RPC</h2>
            {log.map((e, i) => (
              <div key={i}>
                <div class="muted">→ request</div>
                <pre>{JSON.stringify(e.request, null, 2)}</pre>
                <div class="muted">← HTTP {e.status}</div>
                <pre>{JSON.stringify(e.response, null, 2)}</pre>
              </div>
            ))}
          </section>
        </div>
      )}
    </Loading>
  );
}
