// TLS from the proxy to HTTP backends (GwPolicy `backend.tls`, resolved into BackendRef.tls): one undici
// dispatcher per (backend, TLS settings), reused across snapshots while the settings stay the same and
// closed once idle. Behaviour: docs/proxy.md "Backend TLS".
import { X509Certificate, createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { checkServerIdentity, createSecureContext, type ConnectionOptions, type PeerCertificate } from 'node:tls';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { Agent, buildConnector } from './undici.js';
import type { BackendTls, Snapshot } from '../../ir/types.js';
import type { Problem } from '../../problem.js';
import { opensslGroups } from './tls-settings.js';
import { NO_IDENTITY, SPIFFE_ID_REFUSED, identityClientOptions } from '../identity/identity-tls.js';
import type { WorkloadIdentity } from '../identity/workload-identity.js';

export interface UpstreamTlsOptions {
  log: Logger;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  /** A dispatcher unused this long (no request started) is closed; in-flight requests still finish. */
  idleCloseMs?: number;
  /** The proxy's SPIFFE / Istio identity, for `certificateSource: SPIFFE` edges; unset: such edges fail. */
  identity?: WorkloadIdentity;
}

interface Entry {
  agent: Agent;
  lastUsed: number;
}

/** The SAN check error: its code lets the forwarder name the reason without quoting the certificate. */
const SAN_MISMATCH = 'ERR_GW_TLS_SAN_MISMATCH';

export class UpstreamTlsPool {
  private readonly entries = new Map<string, Entry>();
  private readonly warnedInsecure = new Set<string>();
  /**
   * TLS alerts seen on sockets, by local port. With TLS 1.3 a backend rejects a client certificate after
   * the client's handshake is done, so undici reports only "other side closed"; the socket saw the alert.
   */
  private readonly socketErrors = new Map<number, string>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleCloseMs: number;

  constructor(private readonly opts: UpstreamTlsOptions) {
    this.idleCloseMs = opts.idleCloseMs ?? 5 * 60_000;
    this.sweeper = setInterval(() => this.sweep(Date.now()), Math.max(1000, Math.floor(this.idleCloseMs / 2)));
    this.sweeper.unref();
  }

  /** The dispatcher for `backend` at `host` with these settings; built on first use, then reused. */
  dispatcher(backend: string, host: string, tls: BackendTls): Dispatcher {
    const key = settingsKey(backend, host, tls);
    let e = this.entries.get(key);
    if (!e) {
      e = { agent: this.build(backend, host, tls), lastUsed: 0 };
      this.entries.set(key, e);
    }
    e.lastUsed = Date.now();
    return e.agent;
  }

  /** Closes dispatchers idle since before `now - idleCloseMs`: settings that left the snapshot end here. */
  sweep(now: number): void {
    for (const [key, e] of this.entries) {
      if (now - e.lastUsed < this.idleCloseMs) continue;
      this.entries.delete(key);
      // close(), not destroy(): a long response still streaming through it is allowed to finish.
      e.agent.close().catch(() => undefined);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const agents = [...this.entries.values()].map((e) => e.agent);
    this.entries.clear();
    await Promise.all(agents.map((a) => a.destroy()));
  }

  /**
   * The TLS options of a connection to `host` with these settings (CA, client certificate, SNI, identity
   * check), for clients other than undici's (HTTP/2 upstreams, src/proxy/http/h2-upstream.ts).
   */
  connectOptions(backend: string, host: string, tls: BackendTls): ConnectionOptions {
    this.warnInsecure(backend, tls);
    const skip = tls.insecureSkipVerify;
    if (tls.workloadIdentity)
      return {
        servername: tls.sni || (isIP(host) ? '' : host),
        ...identityClientOptions(this.opts.identity, spiffeIds(tls)),
        ...handshakeOptions(tls),
      };
    return {
      servername: tls.sni || (isIP(host) ? '' : host),
      ...(tls.caPem ? { ca: tls.caPem } : {}),
      ...(tls.clientCertChainPem ? { cert: tls.clientCertChainPem, key: tls.clientPrivateKeyPem } : {}),
      rejectUnauthorized: skip !== 'SKIP_ALL',
      checkServerIdentity: identityCheck(skip, tls.verifySubjectAltNames),
      ...handshakeOptions(tls),
    };
  }

  private warnInsecure(backend: string, tls: BackendTls): void {
    if (tls.insecureSkipVerify === 'SKIP_ALL' && !this.warnedInsecure.has(backend)) {
      this.warnedInsecure.add(backend);
      this.opts.log.warn(
        { backend, source: tls.source },
        'backend TLS certificates are not verified (insecureSkipVerify: All)',
      );
    }
  }

  private build(backend: string, host: string, tls: BackendTls): Agent {
    this.warnInsecure(backend, tls);
    const skip = tls.insecureSkipVerify;
    // Without an explicit name undici would send the client's Host header as SNI; an IP gets no SNI at all.
    const servername = tls.sni || (isIP(host) ? '' : host);
    if (tls.workloadIdentity) return this.buildWithIdentity(servername, tls);
    const base = buildConnector({
      timeout: this.opts.connectTimeoutMs,
      ...(tls.caPem ? { ca: tls.caPem } : {}),
      ...(tls.clientCertChainPem ? { cert: tls.clientCertChainPem, key: tls.clientPrivateKeyPem } : {}),
      rejectUnauthorized: skip !== 'SKIP_ALL',
      checkServerIdentity: identityCheck(skip, tls.verifySubjectAltNames),
      // Not ALPNProtocols: undici's connector sets its own list, so edges with one dial through upstream-dial.ts.
      ...(tls.keyExchangeGroups?.length ? { ecdhCurve: handshakeOptions(tls).ecdhCurve } : {}),
    });
    return new Agent({
      connect: (o, cb) =>
        base({ ...o, servername }, (err, socket) => {
          socket?.on('error', (e: { code?: unknown }) => this.remember(socket.localPort, e.code));
          cb(err as Error, socket as never);
        }),
      headersTimeout: this.opts.headersTimeoutMs,
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      connections: 1024,
    });
  }

  /**
   * A `certificateSource: SPIFFE` dispatcher: each new connection takes the identity current at its
   * handshake (a rotation reaches new connections; pooled ones keep the certificate they were made with).
   */
  private buildWithIdentity(servername: string, tls: BackendTls): Agent {
    let made: { generation: number; connect: ReturnType<typeof buildConnector> } | undefined;
    const connector = (): ReturnType<typeof buildConnector> => {
      const generation = this.opts.identity?.generation ?? -1;
      // An identity that expired without a renewal is checked at every dial (identityClientOptions throws).
      const expiresAt = this.opts.identity?.current?.certificate.expiresAt ?? 0;
      if (made?.generation !== generation || expiresAt <= Date.now())
        made = {
          generation,
          connect: buildConnector({
            timeout: this.opts.connectTimeoutMs,
            ...identityClientOptions(this.opts.identity, spiffeIds(tls)),
            ...(tls.keyExchangeGroups?.length ? { ecdhCurve: handshakeOptions(tls).ecdhCurve } : {}),
          }),
        };
      return made.connect;
    };
    return new Agent({
      connect: (o, cb) => {
        let base: ReturnType<typeof buildConnector>;
        try {
          base = connector();
        } catch (err) {
          cb(err as Error, null);
          return;
        }
        base({ ...o, servername }, (err, socket) => {
          socket?.on('error', (e: { code?: unknown }) => this.remember(socket.localPort, e.code));
          cb(err as Error, socket as never);
        });
      },
      headersTimeout: this.opts.headersTimeoutMs,
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      connections: 1024,
    });
  }

  /** Why a request on a TLS edge failed, when it was TLS (see tlsFailureReason). */
  failureReason(err: unknown): string | undefined {
    const direct = tlsFailureReason(err);
    if (direct) return direct;
    const port = (err as { socket?: { localPort?: unknown } } | undefined)?.socket?.localPort;
    if (typeof port !== 'number') return undefined;
    const code = this.socketErrors.get(port);
    this.socketErrors.delete(port);
    return code ? tlsFailureReason({ code }) : undefined;
  }

  private remember(port: number | undefined, code: unknown): void {
    if (port === undefined || typeof code !== 'string' || !tlsFailureReason({ code })) return;
    // Bounded: entries are taken by failureReason; ones never asked for age out here.
    if (this.socketErrors.size >= 256) this.socketErrors.delete(this.socketErrors.keys().next().value as number);
    this.socketErrors.set(port, code);
  }
}

/** `alpnProtocols` (offered as written) and `keyExchangeGroups` (OpenSSL's names) of the settings. */
function handshakeOptions(tls: BackendTls): Pick<ConnectionOptions, 'ALPNProtocols' | 'ecdhCurve'> {
  const groups = opensslGroups(tls.keyExchangeGroups ?? []);
  return {
    ...(tls.alpnProtocols?.length ? { ALPNProtocols: [...tls.alpnProtocols] } : {}),
    ...(groups.names.length ? { ecdhCurve: groups.names.join(':') } : {}),
  };
}

function identityCheck(
  skip: BackendTls['insecureSkipVerify'],
  sans: string[],
): (host: string, cert: PeerCertificate) => Error | undefined {
  if (skip !== 'SKIP_NONE') return () => undefined;
  if (sans.length === 0) return checkServerIdentity;
  return (_host, cert) => {
    const uris = (cert.subjectaltname ?? '')
      .split(', ')
      .filter((s) => s.startsWith('URI:'))
      .map((s) => s.slice(4));
    // A DNS name goes through Node's own matching (wildcards, IP SANs); a URI (SPIFFE ID) must be equal.
    const ok = sans.some((want) =>
      want.includes(':') && !isIP(want) ? uris.includes(want) : checkServerIdentity(want, cert) === undefined,
    );
    return ok
      ? undefined
      : Object.assign(new Error('the backend certificate carries none of verifySubjectAltNames'), {
          code: SAN_MISMATCH,
        });
  };
}

/** The SPIFFE IDs a `certificateSource: SPIFFE` edge accepts: the URIs of verifySubjectAltNames. */
function spiffeIds(tls: BackendTls): string[] {
  return tls.verifySubjectAltNames.filter((n) => n.startsWith('spiffe://'));
}

/** The settings' identity: a hash, so the map never holds key material as a string key. */
function settingsKey(backend: string, host: string, tls: BackendTls): string {
  const h = createHash('sha256');
  for (const part of [
    host,
    tls.caPem,
    tls.clientCertChainPem,
    tls.clientPrivateKeyPem,
    tls.sni,
    tls.insecureSkipVerify,
    ...tls.verifySubjectAltNames,
    `alpn ${(tls.alpnProtocols ?? []).join(',')}`,
    `groups ${(tls.keyExchangeGroups ?? []).join(',')}`,
    `identity ${tls.workloadIdentity === true}`,
  ])
    h.update(part).update('\0');
  return `${backend}\0${h.digest('hex')}`;
}

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REJECTED',
]);

/**
 * Why a TLS connection to a backend failed, as a phrase for the client and the log, or undefined when
 * the error is not about TLS. Never quotes the certificate (names in it are the backend's business).
 */
export function tlsFailureReason(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = String(e?.code ?? e?.cause?.code ?? '');
  if (UNTRUSTED.has(code)) return 'the backend certificate is not signed by a trusted CA';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return 'the backend certificate is expired or not yet valid';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'the backend certificate does not match the host name';
  if (code === SAN_MISMATCH) return 'the backend certificate carries none of verifySubjectAltNames';
  if (code === SPIFFE_ID_REFUSED) return 'the backend SPIFFE ID is not allowed or not anchored in its trust bundle';
  if (code === NO_IDENTITY) return 'the proxy has no workload identity for certificateSource SPIFFE';
  if (code.startsWith('ERR_SSL_') && code.includes('CERTIFICATE_REQUIRED'))
    return 'the backend requires a client certificate';
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO') return 'the handshake failed';
  return undefined;
}

/**
 * What is wrong with the backend TLS of a snapshot's route edges, checked before it is applied so that
 * unusable PEM is NACKed instead of failing requests later. Each distinct setting is parsed once.
 */
export function backendTlsProblems(snapshot: Snapshot, source: string): Problem[] {
  const problems: Problem[] = [];
  const verdicts = new Map<string, string | undefined>();
  for (const r of snapshot.resources) {
    if (r.kind !== 'route' || !r.route) continue;
    const route = r.route;
    route.backends.forEach((b, i) => {
      const all: [string, BackendTls | null | undefined][] = [
        [`backends[${i}].tls`, b.tls],
        ...Object.entries(b.targetTls ?? {}).map(([t, tls]): [string, BackendTls] => [
          `backends[${i}].targetTls.${t}`,
          tls,
        ]),
        ...Object.entries(b.ai?.providers ?? {}).map(([p, e]): [string, BackendTls | null] => [
          `backends[${i}].ai.providers.${p}.tls`,
          e.tls,
        ]),
      ];
      for (const [path, tls] of all) {
        if (!tls) continue;
        const key = settingsKey('', '', tls);
        if (!verdicts.has(key)) verdicts.set(key, tlsSettingsProblem(tls));
        const message = verdicts.get(key);
        if (message) problems.push({ source, object: `Route ${route.name}`, path, message });
      }
    });
  }
  return problems;
}

/** What makes these TLS settings unusable (unparseable PEM, a certificate without its key), or undefined. */
export function tlsSettingsProblem(tls: BackendTls): string | undefined {
  if (tls.workloadIdentity && (tls.caPem || tls.clientCertChainPem || tls.clientPrivateKeyPem))
    return 'workload_identity takes the CA and client certificate from the proxy identity; ca_pem and client_* must be empty';
  if (!tls.clientCertChainPem !== !tls.clientPrivateKeyPem)
    return 'must set both client_cert_chain_pem and client_private_key_pem, or neither';
  const groups = opensslGroups(tls.keyExchangeGroups ?? []);
  // Fails closed: a connection with fewer groups than asked for (or OpenSSL's defaults) is never made.
  if (groups.unknown.length)
    return groups.unknown.includes('X25519_MLKEM768')
      ? `key_exchange_groups X25519_MLKEM768 needs OpenSSL 3.5 (Node 24); this proxy runs on Node ${process.versions.node} with OpenSSL ${process.versions.openssl}`
      : `key_exchange_groups names groups this proxy does not know: ${groups.unknown.join(', ')}`;
  // createSecureContext skips CA blocks it cannot parse, which would silently trust fewer roots.
  const caBlocks = tls.caPem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  if (tls.caPem && caBlocks.length === 0) return 'ca_pem holds no PEM certificate';
  try {
    for (const b of caBlocks) new X509Certificate(b);
  } catch {
    return 'ca_pem holds a certificate that cannot be parsed';
  }
  try {
    createSecureContext({
      ...(tls.caPem ? { ca: tls.caPem } : {}),
      ...(tls.clientCertChainPem ? { cert: tls.clientCertChainPem, key: tls.clientPrivateKeyPem } : {}),
    });
  } catch (err) {
    // The code only: OpenSSL's text may quote the input.
    return `holds a CA bundle or client certificate that cannot be used (${String((err as { code?: unknown }).code ?? 'unreadable PEM')})`;
  }
  return undefined;
}
