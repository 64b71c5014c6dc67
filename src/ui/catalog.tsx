// The merged MCP catalog as one caller sees it: the tools, prompts and resources a route lists for a pasted
// token. The lists come from the route itself (a client from this browser, through the route's whole
// pipeline), so authorization that hides a tool from this caller hides it here too; there is no back door.
import { useState } from 'preact/hooks';
import type { SnapshotView } from './api.js';
import { listAll, type McpClient } from './mcp-client.js';
import { Connect, mcpRouteUrls, type Tool } from './playground.js';
import { Loading, useApi } from './views.js';

interface Named {
  name?: string;
  uri?: string;
  description?: string;
}

/** A list the route refused (403, method not found) shows why instead of an empty list. */
type Listed = { items: Named[] } | { error: string };

async function listed(client: McpClient, method: string, key: string): Promise<Listed> {
  try {
    return { items: (await listAll(client, method, key)) as Named[] };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function CatalogList(props: { title: string; id: string; list: Listed }) {
  const { list } = props;
  return (
    <section data-testid={props.id}>
      <h2>
        {props.title}
        {'items' in list ? ` (${list.items.length})` : ''}
      </h2>
      {'error' in list ? (
        <p class="bad">{list.error}</p>
      ) : list.items.length === 0 ? (
        <p class="muted">none for this caller</p>
      ) : (
        <ul class="plain">
          {list.items.map((t) => (
            <li key={t.name ?? t.uri} data-testid="catalog-item">
              <code>{t.name ?? t.uri}</code> <span class="muted">{t.description ?? t.uri ?? ''}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

interface Catalog {
  tools: Listed;
  prompts: Listed;
  resources: Listed;
}

export function CatalogView() {
  const state = useApi<SnapshotView>('snapshot');
  const [catalog, setCatalog] = useState<Catalog>();
  const load = async (client: McpClient, tools: Tool[]): Promise<void> => {
    const [prompts, resources] = [
      await listed(client, 'prompts/list', 'prompts'),
      await listed(client, 'resources/list', 'resources'),
    ];
    setCatalog({ tools: { items: tools }, prompts, resources });
  };
  return (
    <Loading state={state}>
      {(s) => (
        <>
          <section data-testid="catalog">
            <h2>MCP catalog as a caller sees it</h2>
            <p class="muted">
              Lists what the route answers this token: its authentication and authorization apply, so a tool the
              caller may not call is not listed. The token goes to the route only.
            </p>
            <Connect
              routes={mcpRouteUrls(s, location.hostname)}
              log={() => undefined}
              label="List as this caller"
              onConnected={load}
              onStart={() => setCatalog(undefined)}
            />
          </section>
          {catalog ? (
            <div class="cols">
              <CatalogList title="Tools" id="catalog-tools" list={catalog.tools} />
              <div>
                <CatalogList title="Prompts" id="catalog-prompts" list={catalog.prompts} />
                <CatalogList title="Resources" id="catalog-resources" list={catalog.resources} />
              </div>
            </div>
          ) : null}
        </>
      )}
    </Loading>
  );
}
