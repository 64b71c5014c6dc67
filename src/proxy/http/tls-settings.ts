// GwPolicy `frontend.tls` as Node's TLS server understands it: protocol versions, the OpenSSL names of
// the API's cipher suites and key-exchange groups, ALPN selection and the handshake timeout. The IR
// carries the API's names; this file is the one place that knows OpenSSL's.
import { createSecureContext, type SecureContextOptions, type SecureVersion } from 'node:tls';
import type { ListenerTls } from '../../ir/types.js';

/** Application protocols this proxy can speak after the handshake, in its preference order. */
export const SPOKEN_ALPN: readonly string[] = ['h2', 'http/1.1'];

/** The API's cipher suite names → OpenSSL's (TLS 1.3 suites keep their `TLS_` names; Node routes them by prefix). */
const OPENSSL_CIPHERS: Readonly<Record<string, string>> = {
  TLS13_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS13_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS13_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
};

/** Whether this Node's OpenSSL offers the hybrid post-quantum group (OpenSSL 3.5: Node 24, the image's). */
export const postQuantumSupported = ((): boolean => {
  try {
    createSecureContext({ ecdhCurve: 'X25519MLKEM768' });
    return true;
  } catch {
    return false;
  }
})();

/** The API's group names → OpenSSL's group list names (X25519_MLKEM768 only where OpenSSL has it). */
const OPENSSL_GROUPS: Readonly<Record<string, string>> = {
  X25519: 'X25519',
  'P-256': 'P-256',
  'P-384': 'P-384',
  ...(postQuantumSupported ? { X25519_MLKEM768: 'X25519MLKEM768' } : {}),
};

/** The API's group names as OpenSSL's, and those this Node's OpenSSL does not have (or nobody knows). */
export function opensslGroups(names: readonly string[]): { names: string[]; unknown: string[] } {
  return { names: names.flatMap((g) => OPENSSL_GROUPS[g] ?? []), unknown: names.filter((g) => !OPENSSL_GROUPS[g]) };
}

const VERSIONS: Readonly<Record<string, SecureVersion>> = {
  TLS_PROTOCOL_VERSION_1_2: 'TLSv1.2',
  TLS_PROTOCOL_VERSION_1_3: 'TLSv1.3',
};

/** The seed's default handshake timeout. */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 15_000;

/**
 * Secure-context options of the per-port settings. Only suites and groups the IR names are allowed:
 * a list without TLS 1.3 suites disables TLS 1.3, one without TLS 1.2 suites leaves TLS 1.2 no cipher.
 */
export function tlsContextSettings(tls: ListenerTls | null | undefined): SecureContextOptions {
  const ciphers = (tls?.cipherSuites ?? []).map((c) => OPENSSL_CIPHERS[c]).filter((c): c is string => !!c);
  const groups = (tls?.keyExchangeGroups ?? []).map((g) => OPENSSL_GROUPS[g]).filter((g): g is string => !!g);
  return {
    minVersion: VERSIONS[tls?.minProtocolVersion ?? ''] ?? 'TLSv1.2',
    maxVersion: VERSIONS[tls?.maxProtocolVersion ?? ''] ?? 'TLSv1.3',
    ...(ciphers.length ? { ciphers: ciphers.join(':') } : {}),
    ...(groups.length ? { ecdhCurve: groups.join(':') } : {}),
  };
}

/** Cipher suite and group names in a listener's IR this proxy does not know (another producer's IR); the snapshot check refuses them. */
export function unknownTlsNames(tls: ListenerTls | null | undefined): string[] {
  return [
    ...(tls?.cipherSuites ?? []).filter((c) => !OPENSSL_CIPHERS[c]),
    ...(tls?.keyExchangeGroups ?? []).filter((g) => !OPENSSL_GROUPS[g]),
  ];
}

/**
 * The protocol to select: the first of the listener's list (else every spoken one) that the proxy speaks
 * and the client offers. Undefined fails the handshake with `no_application_protocol`.
 */
export function chooseAlpn(listenerProtocols: readonly string[], offered: readonly string[]): string | undefined {
  const allowed = listenerProtocols.length ? listenerProtocols : SPOKEN_ALPN;
  return allowed.find((p) => SPOKEN_ALPN.includes(p) && offered.includes(p));
}

export function handshakeTimeoutOf(tls: ListenerTls | null | undefined): number {
  return tls?.handshakeTimeoutMs || DEFAULT_HANDSHAKE_TIMEOUT_MS;
}
