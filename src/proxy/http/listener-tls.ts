// TLS termination on HTTPS binds: one secure context per listener, chosen per connection by SNI
// (exact host name over the longest wildcard over a listener without host names); clients that send
// no SNI get the bind's default. A snapshot swaps the whole table at once, so new connections see the
// new certificates without rebinding and open ones keep theirs. Key material is never logged: errors
// name the listener and certificate index and carry only OpenSSL's reason. Listeners with the option
// `tls-certificate-source: SPIFFE` serve the proxy's workload identity: each rotation rebuilds the table
// (runtime.ts); `tls-client-verification: SPIFFE` closes clients without an SVID of the proxy's trust domain.
import { createSecureContext, type SecureContext, type SecureContextOptions, type TLSSocket } from 'node:tls';
import type { Server as HttpsServer, ServerOptions } from 'node:https';
import type { Listener } from '../../ir/types.js';
import type { Problem } from '../../problem.js';
import { chooseAlpn, handshakeTimeoutOf, tlsContextSettings, unknownTlsNames } from './tls-settings.js';
import type { IdentitySnapshot } from '../identity/workload-identity.js';
import { ownBundlePem, peerIdProblem } from '../identity/identity-tls.js';

/** One listener's secure context, with the listener's name for diagnostics. */
export interface TlsEntry {
  listener: string;
  context: SecureContext;
  options: SecureContextOptions;
  /** frontend.tls.alpnProtocols of the listener; empty: every protocol the proxy speaks. */
  alpn: string[];
  /** Set when clients must present an SVID (`tls-client-verification: SPIFFE`): the identity checked against. */
  clientIdentity?: { snapshot: IdentitySnapshot | undefined };
}

/** The certificates of one HTTPS bind. */
export interface BindTls {
  exact: Map<string, TlsEntry>;
  /** `.example.com` suffixes of `*.example.com` listeners, longest first. */
  wildcard: Array<[string, TlsEntry]>;
  /** For SNI names no host name matches, and (as server options) for clients without SNI. */
  fallback: TlsEntry;
  /** frontend.tls.handshakeTimeout of the bind's listeners (they agree; the translator refuses otherwise). */
  handshakeTimeoutMs: number;
  /** Some listener of the bind verifies client SVIDs: the bind asks every client for a certificate. */
  requestCert: boolean;
}

/**
 * Secure-context options of one listener: every certificate pair (RSA, ECDSA, ...) in one context, and
 * its frontend.tls versions, ciphers and groups (those of the bind's default context are the ones in force).
 */
export function listenerContextOptions(l: Listener, identity?: IdentitySnapshot): SecureContextOptions {
  // Without an identity yet, a workload-identity listener has no certificate: every handshake fails.
  const certs = l.tls?.workloadIdentity
    ? identity
      ? [{ certChainPem: identity.certificate.certChainPem, privateKeyPem: identity.certificate.privateKeyPem }]
      : []
    : (l.tls?.certificates ?? []);
  return {
    cert: certs.map((c) => c.certChainPem),
    key: certs.map((c) => c.privateKeyPem),
    ...(l.tls?.clientWorkloadIdentity && identity ? { ca: ownBundlePem(identity) } : {}),
    ...tlsContextSettings(l.tls),
  };
}

/** What is wrong with an HTTPS listener's certificates; the check the proxy runs before applying. */
export function listenerTlsProblems(l: Listener, source: string): Problem[] {
  const object = `Listener ${l.name}`;
  const certs = l.tls?.certificates ?? [];
  if (l.tls?.workloadIdentity && certs.length > 0)
    return [{ source, object, path: 'tls.certificates', message: 'must be empty with workload_identity' }];
  if (certs.length === 0 && !l.tls?.workloadIdentity)
    return [{ source, object, path: 'tls.certificates', message: 'an HTTPS listener needs at least one certificate' }];
  const problems: Problem[] = [];
  const unknown = unknownTlsNames(l.tls);
  if (unknown.length)
    problems.push({
      source,
      object,
      path: 'tls',
      message: unknown.includes('X25519_MLKEM768')
        ? `keyExchangeGroups X25519_MLKEM768 needs OpenSSL 3.5 (Node 24); this proxy runs on Node ${process.versions.node} with OpenSSL ${process.versions.openssl}`
        : `names TLS settings this proxy does not know: ${unknown.join(', ')}`,
    });
  certs.forEach((c, i) => {
    try {
      createSecureContext({ cert: c.certChainPem, key: c.privateKeyPem });
    } catch (err) {
      problems.push({
        source,
        object,
        path: `tls.certificates[${i}]`,
        message: `is not a usable certificate and key (${opensslReason(err)})`,
      });
    }
  });
  if (problems.length === 0) {
    try {
      createSecureContext(listenerContextOptions(l));
    } catch (err) {
      problems.push({
        source,
        object,
        path: 'tls.certificates',
        message: `cannot be served together (${opensslReason(err)}); use one certificate per key type`,
      });
    }
  }
  return problems;
}

/** The table of every bind whose listeners are HTTPS (the snapshot check keeps binds unmixed). */
export function bindTlsOf(listeners: Iterable<Listener>, identity?: IdentitySnapshot): Map<string, BindTls> {
  const byBind = new Map<string, Listener[]>();
  for (const l of listeners) if (l.protocol === 'HTTPS') byBind.set(l.bind, [...(byBind.get(l.bind) ?? []), l]);
  return new Map([...byBind].map(([bind, ls]) => [bind, buildBindTls(ls, identity)]));
}

/** Builds a bind's table from its listeners in snapshot order; the caller has checked them. */
export function buildBindTls(listeners: Listener[], identity?: IdentitySnapshot): BindTls {
  const exact = new Map<string, TlsEntry>();
  const wildcard: Array<[string, TlsEntry]> = [];
  let catchAll: TlsEntry | undefined;
  let first: TlsEntry | undefined;
  for (const l of listeners) {
    const options = listenerContextOptions(l, identity);
    const entry: TlsEntry = {
      listener: l.name,
      context: createSecureContext(options),
      options,
      alpn: l.tls?.alpnProtocols ?? [],
      ...(l.tls?.clientWorkloadIdentity ? { clientIdentity: { snapshot: identity } } : {}),
    };
    first ??= entry;
    if (l.hostnames.length === 0) catchAll ??= entry;
    for (const h of l.hostnames.map((x) => x.toLowerCase())) {
      if (h.startsWith('*.')) wildcard.push([h.slice(1), entry]);
      else if (!exact.has(h)) exact.set(h, entry);
    }
  }
  wildcard.sort(([a], [b]) => b.length - a.length);
  return {
    exact,
    wildcard,
    fallback: catchAll ?? first ?? { listener: '', context: createSecureContext({}), options: {}, alpn: [] },
    handshakeTimeoutMs: handshakeTimeoutOf(listeners[0]?.tls),
    requestCert: listeners.some((l) => l.tls?.clientWorkloadIdentity),
  };
}

/** True when the bind serves (or verifies with) the workload identity: a rotation must rebuild it. */
export function usesIdentity(listeners: Iterable<Listener>): boolean {
  return [...listeners].some((l) => l.tls?.workloadIdentity || l.tls?.clientWorkloadIdentity);
}

/** Exact name, else the longest wildcard, else the fallback (a listener without host names, else the first). */
export function selectTls(table: BindTls, servername: string): TlsEntry {
  const name = servername.toLowerCase().replace(/\.$/, '');
  const exact = table.exact.get(name);
  if (exact) return exact;
  // Gateway API wildcards are suffix matches: `*.example.com` covers `a.b.example.com`, not `example.com`.
  for (const [suffix, entry] of table.wildcard) if (name.endsWith(suffix) && name.length > suffix.length) return entry;
  return table.fallback;
}

/** The live table of one HTTPS server; `update` swaps it for new connections, open ones keep theirs. */
export class TlsBind {
  private server: Pick<HttpsServer, 'setSecureContext'> | undefined;

  constructor(private table: BindTls) {}

  /**
   * Options for `https.createServer`: the default context, the SNI selector and the ALPN choice (by the
   * SNI name's listener) reading the live table, and the handshake timeout (a change rebinds: see `sameServer`).
   */
  serverOptions(): ServerOptions {
    return {
      ...this.table.fallback.options,
      SNICallback: (name, cb) => cb(null, selectTls(this.table, name).context),
      ALPNCallback: ({ servername, protocols }) =>
        chooseAlpn(servername ? selectTls(this.table, servername).alpn : this.table.fallback.alpn, protocols),
      handshakeTimeout: this.table.handshakeTimeoutMs,
      // The chain and SPIFFE ID are checked per listener once the handshake is done (`refusedClient`).
      ...(this.table.requestCert ? { requestCert: true, rejectUnauthorized: false } : {}),
    };
  }

  /** Node reads the handshake timeout and requestCert only when the server is created; a change needs a new server. */
  sameServer(table: BindTls): boolean {
    return table.handshakeTimeoutMs === this.table.handshakeTimeoutMs && table.requestCert === this.table.requestCert;
  }

  /**
   * Why a client of a `tls-client-verification: SPIFFE` listener (chosen by its SNI) is refused: no
   * certificate, a chain not verified against the trust bundles, or no SPIFFE ID of the proxy's own trust
   * domain anchored in that domain's bundle. Undefined when it may go on.
   */
  refusedClient(socket: TLSSocket): string | undefined {
    const entry = selectTls(this.table, socket.servername || '');
    if (!entry.clientIdentity) return undefined;
    const s = entry.clientIdentity.snapshot;
    if (!s) return 'the proxy has no workload identity to verify clients with';
    if (!socket.authorized) return `client certificate not verified (${String(socket.authorizationError)})`;
    return peerIdProblem(s, [], socket.getPeerCertificate(true))?.message;
  }

  /**
   * True when the request's Host belongs to another listener than the one the client's SNI chose:
   * that listener's certificate (and policy) was not the one negotiated, so the client must retry on a
   * connection of its own (421). A client without SNI negotiated the fallback listener: its Host may name
   * another listener, except one that verifies clients (`tls-client-verification`), which is reached only over
   * a connection that listener verified.
   */
  misdirected(servername: string | false | null | undefined, host: string | undefined): boolean {
    if (!host) return false;
    const name = host.startsWith('[') ? host : host.replace(/:\d+$/, '');
    const wanted = selectTls(this.table, name);
    if (!servername) return wanted.clientIdentity !== undefined && wanted.listener !== this.table.fallback.listener;
    return selectTls(this.table, servername).listener !== wanted.listener;
  }

  /**
   * True when `listener` verifies clients (`tls-client-verification`) and this connection's handshake (chosen
   * by its SNI name, the fallback without one) was another listener's, so no client check covered it.
   */
  unverifiedFor(listener: string, servername: string | false | null | undefined): boolean {
    const t = this.table;
    const entries = [...t.exact.values(), ...t.wildcard.map(([, e]) => e), t.fallback];
    if (!entries.some((e) => e.listener === listener && e.clientIdentity)) return false;
    return selectTls(t, servername || '').listener !== listener;
  }

  attach(server: Pick<HttpsServer, 'setSecureContext'>): void {
    this.server = server;
  }

  update(table: BindTls): void {
    this.table = table;
    // The server's own context is what clients without SNI get; SNICallback never runs for them.
    this.server?.setSecureContext(table.fallback.options);
  }
}

/** OpenSSL's reason text only (`key values mismatch`); it never quotes the PEM input. */
function opensslReason(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/i, '').slice(0, 200);
}
