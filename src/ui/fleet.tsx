// The controller's fleet view (docs/ui.md "Fleet view"): gateways, the proxies subscribed to each over xDS
// with the version they applied and their last ACK or NACK (with the proxy's reason), and each gateway's
// translation refusals. Served by `gw controller` on its own admin address.
import { getJson } from './api.js';
import { Loading, useApi } from './views.js';

export interface FleetProxy {
  pod: string;
  peer: string;
  since: string;
  applied: string;
  current: string;
  lastReply: { ack: 'ACK' | 'NACK'; at: string; version: string; errors: { name: string; message: string }[] } | null;
  refusals: { name: string; message: string }[];
}

export interface FleetGateway {
  name: string;
  version: string;
  resources: number;
  proxies: FleetProxy[];
  refusals: { resource: string; field: string; source: string; reason: string; security: boolean }[];
  unserved: { resource: string; reason: string; message: string }[];
}

/** Which UI answers: a proxy's admin address or the controller's. */
export const roleOf = (): Promise<string> => getJson<{ role: string }>('overview').then((o) => o.role);

function short(version: string): string {
  return version ? version.slice(0, 12) : '(none)';
}

function ProxyRow({ p }: { p: FleetProxy }) {
  const reply = p.lastReply;
  return (
    <tr data-testid="proxy-row">
      <td>
        <code>{p.pod}</code>
        <div class="muted">{p.peer}</div>
      </td>
      <td>
        <code data-testid="applied-version" title={p.applied}>
          {short(p.applied)}
        </code>
        {p.applied && p.applied !== p.current ? <div class="muted">sent {short(p.current)}, not applied whole</div> : null}
      </td>
      <td data-testid="last-reply">
        {reply ? (
          <>
            <span class={reply.ack === 'NACK' ? 'bad' : 'good'}>{reply.ack}</span>{' '}
            <span class="muted">
              of {short(reply.version)} at {reply.at}
            </span>
            {reply.errors.map((e) => (
              <div key={e.name} class="bad">
                <code>{e.name}</code>: {e.message}
              </div>
            ))}
          </>
        ) : (
          <span class="muted">waiting for the first answer</span>
        )}
      </td>
      <td>
        {p.refusals.length === 0 ? (
          <span class="muted">none</span>
        ) : (
          <ul class="plain bad" data-testid="proxy-refusals">
            {p.refusals.map((r) => (
              <li key={r.name}>
                <code>{r.name}</code>: {r.message}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td class="muted">{p.since}</td>
    </tr>
  );
}

function GatewaySection({ g }: { g: FleetGateway }) {
  return (
    <section data-testid="gateway" data-gateway={g.name}>
      <h2>
        Gateway <code>{g.name}</code>{' '}
        <span class="muted">
          {g.resources} resource(s), version {short(g.version)}
        </span>
      </h2>
      {g.proxies.length === 0 ? (
        <p class="muted">No proxy is subscribed to this gateway.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Proxy</th>
              <th>Version applied</th>
              <th>Last answer</th>
              <th>Resources it does not serve</th>
              <th>Connected since</th>
            </tr>
          </thead>
          <tbody>
            {g.proxies.map((p) => (
              <ProxyRow key={`${p.pod} ${p.peer}`} p={p} />
            ))}
          </tbody>
        </table>
      )}
      <h3>Translation refusals</h3>
      {g.refusals.length === 0 && g.unserved.length === 0 ? (
        <span class="muted">none</span>
      ) : (
        <ul class="plain" data-testid="gateway-refusals">
          {g.refusals.map((r) => (
            <li key={`${r.resource} ${r.source} ${r.field}`} class={r.security ? 'bad' : ''}>
              <code>{r.resource}</code> <code>{r.field}</code> ({r.source}): {r.reason}
              {r.security ? ' (security: the route answers 503)' : ''}
            </li>
          ))}
          {g.unserved.map((u) => (
            <li key={`${u.resource} ${u.message}`}>
              <code>{u.resource}</code> backend left out ({u.reason}): {u.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function FleetView() {
  const state = useApi<{ gateways: FleetGateway[] }>('fleet', 3000);
  return (
    <Loading state={state}>
      {(f) =>
        f.gateways.length === 0 ? (
          <section data-testid="fleet">No gateway has a snapshot or a proxy yet.</section>
        ) : (
          <div data-testid="fleet">
            {f.gateways.map((g) => (
              <GatewaySection key={g.name} g={g} />
            ))}
          </div>
        )
      }
    </Loading>
  );
}
