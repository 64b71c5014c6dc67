// GwPolicy frontend settings that act on a listener's connections rather than on its requests' routes:
// `frontend.connect` → `Listener.connectMode`.
import type { Frontend } from '../../api/frontend.js';
import type { ListenerInput } from '../../ir/types.js';
import type { MergeResult } from '../policies/policy-merge.js';

type ConnectSettings = NonNullable<Frontend['connect']>;

const CONNECT_MODE = { Deny: 'CONNECT_DENY', Route: 'CONNECT_ROUTE', Tunnel: 'CONNECT_TUNNEL' } as const;

/** The connection-level IR fields of a merged frontend policy (empty when it sets none of them). */
export function listenerFrontendSettings(frontend: MergeResult): Pick<ListenerInput, 'connectMode'> {
  const connect = frontend.fields['frontend.connect'] as ConnectSettings | undefined;
  return connect ? { connectMode: CONNECT_MODE[connect.mode] } : {};
}
