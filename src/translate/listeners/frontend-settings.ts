// GwPolicy frontend settings that act on a listener's connections rather than on its requests' routes:
// `frontend.connect` → `Listener.connectMode`, `frontend.proxyProtocol` → `Listener.proxyProtocol`. The PROXY
// header is read before any byte names a listener, so listeners sharing a port must agree on it.
import type { Frontend } from '../../api/frontend.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { ListenerInput, ProxyProtocolInput } from '../../ir/types.js';
import type { StatusPiece } from '../status/conditions.js';
import { objectKey } from '../objects/types.js';
import type { MergeResult } from '../policies/policy-merge.js';

type ConnectSettings = NonNullable<Frontend['connect']>;
type ProxyProtocolSettings = NonNullable<Frontend['proxyProtocol']>;

const CONNECT_MODE = { Deny: 'CONNECT_DENY', Route: 'CONNECT_ROUTE', Tunnel: 'CONNECT_TUNNEL' } as const;
const PROXY_VERSION = { V1: 'PROXY_PROTOCOL_V1', V2: 'PROXY_PROTOCOL_V2' } as const;
const PROXY_MODE = { Strict: 'PROXY_PROTOCOL_STRICT', Optional: 'PROXY_PROTOCOL_OPTIONAL' } as const;

/** The connection-level IR fields of a merged frontend policy (empty when it sets none of them). */
export function listenerFrontendSettings(frontend: MergeResult): Pick<ListenerInput, 'connectMode' | 'proxyProtocol'> {
  const connect = frontend.fields['frontend.connect'] as ConnectSettings | undefined;
  const proxy = frontend.fields['frontend.proxyProtocol'] as ProxyProtocolSettings | undefined;
  return {
    ...(connect ? { connectMode: CONNECT_MODE[connect.mode] } : {}),
    // The API's defaults written out, so the IR says what the proxy does.
    ...(proxy
      ? { proxyProtocol: { version: PROXY_VERSION[proxy.version ?? 'V2'], mode: PROXY_MODE[proxy.mode ?? 'Strict'] } }
      : {}),
  };
}

const proxyKey = (p: ProxyProtocolInput | null | undefined): string => (p ? `${p.version} ${p.mode}` : 'none');

/**
 * Listeners of one bind whose `proxyProtocol` differs (a listener without it counts as "no header"): it is
 * dropped from all of them, so the port reads no PROXY header, and refused on each listener and policy that
 * set it. A PROXY-speaking load balancer in front then fails every request (the header is not HTTP or TLS),
 * so nothing is served with the balancer's address standing in for the client's.
 */
export function agreeOnBindProxyProtocol(
  listeners: ListenerInput[],
  piece: (objectKey: string, p: StatusPiece) => void,
): void {
  const byBind = new Map<string, ListenerInput[]>();
  for (const l of listeners) byBind.set(l.bind ?? '', [...(byBind.get(l.bind ?? '') ?? []), l]);
  for (const group of byBind.values()) {
    if (new Set(group.map((l) => proxyKey(l.proxyProtocol))).size <= 1) continue;
    for (const l of group.filter((x) => x.proxyProtocol)) {
      delete l.proxyProtocol;
      const source = l.frontend?.provenance?.['frontend.proxyProtocol']?.source ?? '';
      const refusal: IrRefusal = {
        field: 'spec.frontend.proxyProtocol',
        source,
        reason:
          'listeners sharing this port set different PROXY protocol settings (or some set none); the header is read before any listener is known, so give every listener on the port the same frontend.proxyProtocol',
        security: false,
      };
      l.refusals = [...(l.refusals ?? []), refusal];
      const policy = /^GwPolicy (.+)$/.exec(source)?.[1];
      if (policy)
        piece(objectKey('GwPolicy', policy), { kind: 'policyRefusal', field: refusal.field, reason: refusal.reason });
    }
  }
}
