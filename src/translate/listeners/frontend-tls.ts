// GwPolicy `frontend.tls` → the TLS settings of an HTTPS listener's IR (`ListenerTls` fields 2-7), and the
// one rule the proxy cannot enforce otherwise: settings decided before SNI picks a listener (versions,
// cipher suites, groups, handshake timeout) must agree among the HTTPS listeners sharing a port.
import type { Frontend } from '../../api/frontend.js';
import { parseDurationMs } from '../../ir/duration.js';
import type { ListenerInput, ListenerTlsInput } from '../../ir/types.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { MergeResult } from '../policies/policy-merge.js';

type FrontendTls = NonNullable<Frontend['tls']>;

/** Key-exchange groups the proxy offers (X25519_MLKEM768 needs its Node 24 OpenSSL; an older one refuses the listener). */
export const SUPPORTED_GROUPS = ['X25519', 'P-256', 'P-384', 'X25519_MLKEM768'];

const VERSION = { TLS1_2: 'TLS_PROTOCOL_VERSION_1_2', TLS1_3: 'TLS_PROTOCOL_VERSION_1_3' } as const;

/** The `ListenerTls` settings of the merged frontend policy (empty when it sets no `frontend.tls`). */
export function listenerTlsSettings(frontend: MergeResult): Omit<ListenerTlsInput, 'certificates'> {
  const tls = frontend.fields['frontend.tls'] as FrontendTls | undefined;
  if (!tls) return {};
  const groups = (tls.keyExchangeGroups ?? []).filter((g) => SUPPORTED_GROUPS.includes(g));
  const timeout = tls.handshakeTimeout ? parseDurationMs(tls.handshakeTimeout) : undefined;
  return {
    ...(tls.minProtocolVersion ? { minProtocolVersion: VERSION[tls.minProtocolVersion] } : {}),
    ...(tls.maxProtocolVersion ? { maxProtocolVersion: VERSION[tls.maxProtocolVersion] } : {}),
    ...(tls.cipherSuites?.length ? { cipherSuites: [...tls.cipherSuites] } : {}),
    ...(groups.length ? { keyExchangeGroups: groups } : {}),
    ...(tls.alpnProtocols?.length ? { alpnProtocols: [...tls.alpnProtocols] } : {}),
    ...(timeout ? { handshakeTimeoutMs: timeout } : {}),
  };
}

/** The per-port part of a listener's TLS settings, as a comparable key. */
function bindKey(t: ListenerTlsInput | undefined | null): string {
  return JSON.stringify([
    t?.minProtocolVersion ?? '',
    t?.maxProtocolVersion ?? '',
    t?.cipherSuites ?? [],
    t?.keyExchangeGroups ?? [],
    t?.handshakeTimeoutMs ?? 0,
  ]);
}

/**
 * HTTPS listeners of one bind whose per-port TLS settings differ: those settings are dropped from all of
 * them and refused on each (security: the listener asked for a protocol floor or cipher set it would not get).
 * `sourceOf` names the policy that set a listener's `frontend.tls`.
 */
export function agreeOnBindTls(listeners: ListenerInput[], sourceOf: (listener: string) => string): void {
  const byBind = new Map<string, ListenerInput[]>();
  for (const l of listeners)
    if (l.protocol === 'HTTPS') byBind.set(l.bind ?? '', [...(byBind.get(l.bind ?? '') ?? []), l]);
  for (const group of byBind.values()) {
    if (new Set(group.map((l) => bindKey(l.tls))).size <= 1) continue;
    for (const l of group) {
      const source = sourceOf(l.name ?? '');
      if (l.tls)
        l.tls = {
          certificates: l.tls.certificates ?? [],
          ...(l.tls.alpnProtocols ? { alpnProtocols: l.tls.alpnProtocols } : {}),
        };
      if (!source) continue;
      const refusal: IrRefusal = {
        field: 'spec.frontend.tls',
        source,
        reason:
          'HTTPS listeners sharing this port set different TLS versions, cipher suites, key-exchange groups or handshake timeouts; these are settled before SNI selects a listener, so give every listener on the port the same frontend.tls',
        security: true,
      };
      l.refusals = [...(l.refusals ?? []), refusal];
    }
  }
}
