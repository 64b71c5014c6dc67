// Client setup snippets for common MCP clients, pointed at a route of this gateway. The token is a
// placeholder: the UI never has the caller's token to put there.
import { useState } from 'preact/hooks';
import type { SnapshotView } from './api.js';
import { mcpRouteUrls } from './playground.js';
import { Loading, useApi } from './views.js';

const TOKEN = '<your token>';

export function snippetsFor(url: string): { client: string; where: string; text: string }[] {
  const auth = { Authorization: `Bearer ${TOKEN}` };
  return [
    {
      client: 'Claude Code',
      where: 'shell',
      text: `claude mcp add --transport http gw ${url} --header "Authorization: Bearer ${TOKEN}"`,
    },
    {
      client: 'VS Code',
      where: '.vscode/mcp.json',
      text: JSON.stringify({ servers: { gw: { type: 'http', url, headers: auth } } }, null, 2),
    },
    {
      client: 'Cursor',
      where: '~/.cursor/mcp.json',
      text: JSON.stringify({ mcpServers: { gw: { url, headers: auth } } }, null, 2),
    },
    {
      client: 'MCP Inspector',
      where: 'npx @modelcontextprotocol/inspector, then in its form',
      text: `Transport Type: Streamable HTTP\nURL: ${url}\nAuthentication: header Authorization, value Bearer ${TOKEN}`,
    },
  ];
}

export function SnippetsView() {
  const state = useApi<SnapshotView>('snapshot');
  const [chosen, setChosen] = useState<string>();
  return (
    <Loading state={state}>
      {(s) => {
        const routes = mcpRouteUrls(s, location.hostname);
        const url = chosen ?? routes[0]?.url ?? '';
        return (
          <section data-testid="snippets">
            <h2>Connect an MCP client</h2>
            <label>
              <span>Route</span>
              <select onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
                {routes.map((r) => (
                  <option key={r.route} value={r.url}>
                    {r.route}
                  </option>
                ))}
              </select>
            </label>
            {url === '' ? <p class="muted">No route to an MCP backend in this snapshot.</p> : null}
            {url !== ''
              ? snippetsFor(url).map((sn) => (
                  <div key={sn.client}>
                    <h3>
                      {sn.client} <span class="muted">({sn.where})</span>
                    </h3>
                    <pre>{sn.text}</pre>
                  </div>
                ))
              : null}
            <p class="muted">Drop the Authorization header when the route does not authenticate.</p>
          </section>
        );
      }}
    </Loading>
  );
}
