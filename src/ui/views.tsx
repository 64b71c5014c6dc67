// The read-only views: what the proxy serves now, from the admin API (src/proxy/admin/view.ts).
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, type LlmView, type McpView, type Overview, type Refusal, type SnapshotView } from './api.js';

/** Fetches `name` on mount and every `everyMs` (0: once); shows the API's error in place of the view. */
export function useApi<T>(name: string, everyMs = 0): { data?: T; error?: string; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    const load = (): void =>
      void getJson<T>(name).then(
        (data) => live && setState({ data }),
        (err: Error) => live && setState({ error: err.message }),
      );
    load();
    const timer = everyMs > 0 ? setInterval(load, everyMs) : undefined;
    return () => {
      live = false;
      if (timer) clearInterval(timer);
    };
  }, [name, everyMs, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function Loading<T>(props: { state: { data?: T; error?: string }; children: (data: T) => ComponentChildren }) {
  if (props.state.error) return <section class="error" data-testid="api-error">{props.state.error}</section>;
  if (!props.state.data) return <p class="muted">Loading…</p>;
  return <>{props.children(props.state.data)}</>;
}

function Refusals({ list }: { list: Refusal[] }) {
  if (list.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="plain">
      {list.map((r) => (
        <li key={`${r.source} ${r.field}`} class={r.security ? 'bad' : ''}>
          <code>{r.field}</code> ({r.source}): {r.reason}
          {r.security ? ' (security: the route answers 503)' : ''}
        </li>
      ))}
    </ul>
  );
}

export function OverviewView() {
  const state = useApi<Overview>('overview', 5000);
  return (
    <Loading state={state}>
      {(o) => (
        <section data-testid="overview">
          <h2>Proxy</h2>
          <div class="kv">
            <span>Gateway</span>
            <code>{o.gateway}</code>
            <span>Pod</span>
            <code>{o.pod}</code>
            {o.worker ? (
              <>
                <span>Answered by</span>
                <span>worker {o.worker} (each worker answers on the admin port in turn)</span>
              </>
            ) : null}
            <span>Gw version</span>
            <code>{o.gwVersion}</code>
            <span>Ready</span>
            <span class={o.ready ? 'good' : 'bad'}>{o.ready ? 'yes' : 'no'}</span>
            <span>Snapshot version</span>
            <code data-testid="snapshot-version">{o.xds?.version || o.snapshotVersion || '(none)'}</code>
            <span>Controller stream</span>
            <span>{o.xds ? (o.xds.connected ? 'connected' : 'disconnected (serving the last snapshot)') : 'none'}</span>
            <span>Last update</span>
            <span data-testid="ack" class={o.xds?.ack === 'NACK' ? 'bad' : 'good'}>
              {o.xds?.ack ?? 'n/a'} {o.xds?.updatedAt ? <span class="muted">at {o.xds.updatedAt}</span> : null}
            </span>
          </div>
          {o.xds && o.xds.nacked.length > 0 ? (
            <ul class="plain bad">
              {o.xds.nacked.map((n) => (
                <li key={n.name}>
                  <code>{n.name}</code>: {n.message}
                </li>
              ))}
            </ul>
          ) : null}
        </section>
      )}
    </Loading>
  );
}

function RouteRow({ r }: { r: SnapshotView['routes'][number] }) {
  return (
    <tr data-testid="route-row">
      <td>
        <code>{r.name}</code>
        <div class="muted">{r.listeners.join(', ')}</div>
        {r.hostnames.length ? <div class="muted">{r.hostnames.join(', ')}</div> : null}
      </td>
      <td>{r.matches.map((m) => <div key={m}>{m}</div>)}</td>
      <td>
        {r.backends.map((b) => (
          <div key={b.backend}>
            <code>{b.backend}</code> <span class="muted">weight {b.weight}</span>
          </div>
        ))}
        {r.unserved.map((u) => (
          <div key={u.message} class="bad">
            left out ({u.reason}): {u.message}
          </div>
        ))}
      </td>
      <td data-testid="route-policy">
        {r.policy.length === 0 ? <span class="muted">no policy</span> : null}
        {r.policy.map((p) => (
          <div key={p.field}>
            <code>{p.field}</code> <span class="muted">set by {p.source}</span>
          </div>
        ))}
      </td>
      <td>
        <Refusals list={r.refusals} />
      </td>
    </tr>
  );
}

export function RoutesView() {
  const state = useApi<SnapshotView>('snapshot');
  return (
    <Loading state={state}>
      {(s) => (
        <section data-testid="routes">
          <h2>Routes</h2>
          <table>
            <thead>
              <tr>
                <th>Route (listeners)</th>
                <th>Matches</th>
                <th>Backends</th>
                <th>Effective policy (provenance)</th>
                <th>Refused fields</th>
              </tr>
            </thead>
            <tbody>
              {s.routes.map((r) => (
                <RouteRow key={r.name} r={r} />
              ))}
            </tbody>
          </table>
        </section>
      )}
    </Loading>
  );
}

export function ListenersView() {
  const state = useApi<SnapshotView>('snapshot');
  return (
    <Loading state={state}>
      {(s) => (
        <>
          <section data-testid="listeners">
            <h2>Listeners</h2>
            <table>
              <thead>
                <tr>
                  <th>Listener</th>
                  <th>Port</th>
                  <th>Protocol</th>
                  <th>Hostnames</th>
                  <th>Refused fields</th>
                </tr>
              </thead>
              <tbody>
                {s.listeners.map((l) => {
                  const bind = s.binds.find((b) => b.name === l.bind);
                  return (
                    <tr key={l.name}>
                      <td>
                        <code>{l.name}</code>
                      </td>
                      <td>{bind ? `${bind.address || '*'}:${bind.port}` : l.bind}</td>
                      <td>{l.protocol}</td>
                      <td>{l.hostnames.length ? l.hostnames.join(', ') : <span class="muted">any</span>}</td>
                      <td>
                        <Refusals list={l.refusals} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </section>
          <section data-testid="backends">
            <h2>Backends</h2>
            <table>
              <thead>
                <tr>
                  <th>Backend</th>
                  <th>Kind</th>
                  <th>Summary</th>
                </tr>
              </thead>
              <tbody>
                {s.backends.map((b) => (
                  <tr key={b.name}>
                    <td>
                      <code>{b.name}</code>
                    </td>
                    <td>{b.kind}</td>
                    <td>{b.summary}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </Loading>
  );
}

export function McpTargetsView() {
  const state = useApi<McpView>('mcp', 5000);
  return (
    <Loading state={state}>
      {(m) => (
        <section data-testid="mcp">
          <h2>MCP targets</h2>
          <p>
            Active sessions: <strong data-testid="sessions">{m.sessions.active}</strong>
            {m.sessions.worker ? <span class="muted"> (on worker {m.sessions.worker}; other workers hold their own)</span> : null}
          </p>
          <table>
            <thead>
              <tr>
                <th>Backend</th>
                <th>Target</th>
                <th>Transport</th>
                <th>Passive health</th>
              </tr>
            </thead>
            <tbody>
              {m.targets.map((t) => (
                <tr key={`${t.backend}/${t.name}`} data-testid="target-row">
                  <td>
                    <code>{t.backend}</code>
                  </td>
                  <td>{t.name}</td>
                  <td>
                    <code>{t.transport}</code>
                  </td>
                  <td class={t.health === 'ejected' ? 'bad' : 'good'}>
                    {t.health}
                    {t.ejectedIn.length > 0 ? <span class="muted"> on {t.ejectedIn.join(', ')}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </Loading>
  );
}

export function LlmViewPage() {
  const state = useApi<LlmView>('llm', 5000);
  return (
    <Loading state={state}>
      {(l) => (
        <section data-testid="llm">
          <h2>LLM providers</h2>
          {l.providers.length === 0 ? <p class="muted">No LLM backend in this snapshot.</p> : null}
          <table>
            <tbody>
              {l.providers.map((p) => (
                <tr key={`${p.backend}/${p.name}`}>
                  <td>
                    <code>{p.backend}</code> group {p.group}
                  </td>
                  <td>{p.name}</td>
                  <td>{p.kind}</td>
                  <td>{p.host}</td>
                  <td class={p.health === 'ejected' ? 'bad' : 'good'}>{p.health}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Models</h2>
          {l.models.length === 0 ? <p class="muted">No GwModel in this snapshot.</p> : null}
          <ul class="plain">
            {l.models.map((m) => (
              <li key={m.name}>
                <code>{m.name}</code> matches {m.match} → {m.target} <Refusals list={m.refusals} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </Loading>
  );
}
