// The proxy runtime: binds listeners for an IR snapshot, dispatches each request to its route, and
// swaps in a new snapshot atomically (new ports open first; on any failure nothing changes).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { BackendRef, Listener, McpBackend, Route, Snapshot } from '../ir/types.js';
import { resourcesOf } from '../ir/load.js';
import { ProblemError } from '../problem.js';
import type { RouteSecurityFactory } from './auth/hooks.js';
import { errorCodeOf, sendError } from './http/http-error.js';
import type { EndpointContext } from './mcp/route.js';
import { compileGuardrails } from './mcp/guardrails/index.js';
import { HttpForwarder, forwardRouteOf } from './http/http-forward.js';
import { mcpBackendWithCredentials } from './backend-auth.js';
import { mcpBackendWithTls, targetRequestTimeouts } from './mcp/target-tls.js';
import { identityRefusal, identityTargets } from './mcp/target-identity.js';
import { targetHealthOf } from './mcp/target-health.js';
import type { LlmGuardsFactory } from './guard/types.js';
import { createPromptGuards, type PromptGuards } from './guard/factory.js';
import { LlmForwarder } from './llm/llm-forwarder.js';
import { compileLlmRoute } from './llm/llm-route.js';
import { ModelCatalogStore } from './llm/catalog-store.js';
import { SessionRegistry } from './mcp/sessions.js';
import type { SessionKeys } from './mcp/session-keys.js';
import { checkSnapshot } from './snapshot-check.js';
import type { IdentitySnapshot, WorkloadIdentity } from './identity/workload-identity.js';
import { createMetrics, type ProxyMetrics } from './metrics.js';
import { OutlierDetector } from './policy/outlier.js';
import { limitsWith, type ProxyLimits } from './limits.js';
import { capConnectionsPerSource, listenerServerOptions } from './http/listener-limits.js';
import { drainServers, IDLE_GRACE_MS, InFlight, type DrainPlan } from './http/drain.js';
import { connectResponse, type ConnectPlan } from './http/connect.js';
import { configureTargetQueue } from './mcp/upstream-fetch.js';
import { connectionCaps } from './http/listener-limits.js';
import { H2Sessions } from './http/h2-sessions.js';
import { adaptHttp2 } from './http/h2-compat.js';
import { ConnectionSettings, bindConnectionSettings } from './http/connection-settings.js';
import { NetworkGate, bindNetworkGates, type ConnectionGate } from './http/network-authorization.js';
import { ProxyProtocolGate, bindProxySettings, type ProxySettings } from './http/proxy-protocol.js';
import { authEndpointsOf, type CompiledListener, type CompiledRoute } from './compiled.js';
import { runPipeline, type PipelineServices } from './pipeline.js';
import { a2aMethods } from './a2a/call.js';
import { loadMcpClient } from './lazy/mcp-client.js';
import { loadMcpEndpoint } from './lazy/mcp-endpoint.js';
import { speaksStreamableHttp } from './mcp/http-target.js';
import { AccessTail } from './telemetry/access-tail.js';
import { listenerTelemetryOf, otlpUrlsOf } from './telemetry/listener-telemetry.js';
import type { OtlpExporters } from './telemetry/exporters.js';
import { telemetryOf } from './telemetry/request-telemetry.js';
import { countedGuards } from './llm/counted-guards.js';
import { metricLabelNames } from './telemetry/metric-labels.js';
import { compileRouteMatcher, matchTarget, selectListener } from './http/route-match.js';
import { normalizeHost, parseRequestTarget } from './http/request-target.js';
import { TlsBind, bindTlsOf, usesIdentity, type BindTls } from './http/listener-tls.js';
import { TrafficGate } from './policy/traffic-gate.js';
import { routeTimeouts, type TrafficPlan } from './policy/traffic-policy.js';
import { refusedSecurity } from './policy/refusals.js';
import { ExtAuthClient, compileExtAuth, type ExtAuthRoute } from './auth/ext-auth.js';
import { targetExtAuth } from './mcp/target-ext-auth.js';
import { ExtProcClients } from './ext/ext-proc-client.js';
import { compileExtProc } from './ext/ext-proc-session.js';
import { GlobalRateLimits, compileGlobalRateLimit } from './policy/global-rate-limit.js';

export const defaultMaxRequestBytes = 2 * 1024 * 1024;

/** A route's external services (ext_authz, ext_proc, backend ext_authz) and what of them it cannot enforce. */
function externalServices(
  route: Route,
  llmRoute: boolean,
): {
  plan: Pick<CompiledRoute, 'extAuth' | 'extProc' | 'backendExtAuth' | 'globalRateLimit'>;
  unenforced: string[];
} {
  const extAuth = route.policy?.extAuthorization ? compileExtAuth(route.policy.extAuthorization) : undefined;
  const extProc = route.policy?.extProcessing ? compileExtProc(route.policy.extProcessing) : undefined;
  const backendExt = route.policy?.backendExtAuthorization
    ? compileExtAuth(route.policy.backendExtAuthorization)
    : undefined;
  const global = route.policy?.globalRateLimit
    ? compileGlobalRateLimit(route.policy.globalRateLimit, llmRoute)
    : undefined;
  return {
    plan: {
      ...(typeof global === 'object' ? { globalRateLimit: global } : {}),
      ...(typeof extAuth === 'object' ? { extAuth } : {}),
      ...(typeof extProc === 'object' ? { extProc } : {}),
      ...(typeof backendExt === 'object' ? { backendExtAuth: backendExt } : {}),
    },
    unenforced: [
      ...(typeof extAuth === 'string' ? [`traffic.extAuth (${extAuth})`] : []),
      ...(typeof extProc === 'string' ? [`traffic.extProc (${extProc})`] : []),
      ...(typeof backendExt === 'string' ? [`backend.extAuth (${backendExt})`] : []),
      ...(typeof global === 'string' ? [`traffic.rateLimit.global (${global})`] : []),
    ],
  };
}

/**
 * `backend.extAuth` written per edge (the route's edges or an MCP edge's targets differ): an MCP route's targets'
 * services, and a setting that does not compile. An LLM route serves its `ai` edge, whose settings are per provider.
 */
function edgeExtAuth(
  route: Route,
  ref: Route['backends'][number] | undefined,
  mcp: McpBackend | undefined,
): { targetExtAuth?: ReadonlyMap<string, ExtAuthRoute>; unenforced: string[] } {
  if (mcp) {
    const checks = targetExtAuth(ref, mcp);
    if (typeof checks === 'string') return { unenforced: [checks] };
    return checks ? { targetExtAuth: checks, unenforced: [] } : { unenforced: [] };
  }
  const unenforced: string[] = [];
  for (const b of route.backends) {
    const c = b.extAuthorization ? compileExtAuth(b.extAuthorization) : undefined;
    if (typeof c === 'string') unenforced.push(`backend.extAuth of backend ${b.backend} (${c})`);
  }
  return { unenforced };
}

/** The smallest `frontend.http.maxBufferSize` of the route's listeners (0: none sets it). */
function listenerBufferSize(route: Route, listeners: Map<string, Listener>): number {
  const sizes = route.listeners.map((l) => listeners.get(l)?.limits?.maxBufferSize ?? 0).filter((n) => n > 0);
  return sizes.length ? Math.min(...sizes) : 0;
}

export interface RuntimeOptions {
  log: Logger;
  security?: RouteSecurityFactory;
  serverInfo?: { name: string; title: string; version: string };
  /** Idle sessions without an open GET stream are closed after this long (overrides limits.sessionIdleMs). */
  sessionIdleMs?: number;
  /** Keys sealing MCP session ids (SESSION_KEY); unset: a random key of this process. */
  sessionKeys?: SessionKeys;
  /** Session, connection and time limits; unset ones take defaultLimits. */
  limits?: Partial<ProxyLimits>;
  metrics?: ProxyMetrics;
  /** Milliseconds now, for local rate limits, LLM provider backoff and session max age; injected by tests. */
  clock?: () => number;
  /** Prompt guards of LLM routes (src/proxy/guard); without it LLM requests are not guarded. */
  /** Prompt guards of LLM routes; default the built-in ones (regex, webhook) with GUARDRAIL_WEBHOOK_* from the environment. */
  llmGuards?: LlmGuardsFactory;
  /** Most bytes of a streamed answer held for provider moderation; default GUARDRAIL_STREAM_BUFFER_BYTES (tests shorten it). */
  streamBufferBytes?: number;
  /** How long an external authorization check may take (default 5 s); tests shorten it. */
  extAuthTimeoutMs?: number;
  /** Model catalog files (`--model-catalog`, GwParameters `modelCatalog`): read at start (a bad one throws), reloaded on change. */
  modelCatalogFiles?: readonly string[];
  /** The proxy's SPIFFE / Istio identity (src/proxy/identity), for `certificateSource: SPIFFE` edges and listeners. */
  identity?: WorkloadIdentity;
}

/** What a bind's server is created with; `apply` swaps them on a running one. */
interface BindSettings<Tls = BindTls | TlsBind> {
  /** A snapshot's table, or (restoring a replaced server) the live one it had. */
  tls: Tls | undefined;
  gates: ConnectionGate[] | undefined;
  proxy: ProxySettings | undefined;
}

/** `tls` is set exactly on HTTPS servers; its table is swapped in place on apply. */
interface BoundPort {
  server: Server;
  address: string;
  port: number;
  tls?: TlsBind;
  /** frontend keepalive, idle timeout, connection age: swapped on apply. */
  conn: ConnectionSettings;
  /** frontend.networkAuthorization of the port's listeners: swapped on apply. */
  gate: NetworkGate;
  /** frontend.proxyProtocol of the port's listeners: swapped on apply. */
  proxy: ProxyProtocolGate;
  /** The HTTP/2 sessions of connections that negotiated `h2` (HTTPS) or opened with the h2c preface (plain). */
  h2?: H2Sessions;
}

// Forwarded routes never reach handleMcp; this only fills the field McpRoute requires.
/** The route a request matched, read when its response closes (gw_route_request_duration_seconds). */
const routeOfResponse = new WeakMap<ServerResponse, string>();

const noMcpBackend: McpBackend = {
  targets: [],
  prefixMode: 'PREFIX_MODE_UNSPECIFIED',
  failureMode: 'FAILURE_MODE_UNSPECIFIED',
  sessionRouting: 'SESSION_ROUTING_UNSPECIFIED',
};

const knownMethods = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
]);

export class ProxyRuntime {
  readonly metrics: ProxyMetrics;
  /** The web UI's live access-log tail (lines are copied only while someone reads it). */
  readonly accessTail = new AccessTail();
  readonly sessions: SessionRegistry;
  private readonly limits: ProxyLimits;
  private readonly log: Logger;
  /** Listeners per bind name; replaced as a whole on apply. */
  private state = new Map<string, CompiledListener[]>();
  private readonly ports = new Map<string, BoundPort>();
  private readonly endpoint: EndpointContext;
  private readonly services: PipelineServices;
  /** Passive health of every pool: HTTP backends, AI providers, GwModels and MCP targets. */
  private readonly outliers: OutlierDetector;
  private readonly forwarder: HttpForwarder;
  private readonly llm: LlmForwarder;
  /** Set when the proxy has model catalog files; emits `reload` after each re-read. */
  readonly modelCatalog: ModelCatalogStore | undefined;
  /** The built-in prompt guards when none were given; owns the webhook connection pool. */
  private readonly guards?: PromptGuards;
  private readonly llmGuards: LlmGuardsFactory;
  private closing?: Promise<void>;
  private readonly traffic: TrafficGate;
  private readonly extAuth: ExtAuthClient;
  private readonly extProc: ExtProcClients;
  private readonly globalLimits: GlobalRateLimits;
  private applied = false;
  /** The snapshot serving now (the admin UI's views read it). */
  private current: Snapshot | undefined;
  /** Set by `drain`: readiness turns false while the proxy still serves. */
  private draining = false;
  private readonly inFlight = new InFlight();
  /** Servers of binds a snapshot removed or replaced, still draining, with their bind's name (`retire`). */
  private readonly retired = new Map<Server, { name: string; bound: BoundPort }>();
  private readonly metricChildren = new Map<string, unknown>();
  /**
   * OTLP providers of `frontend.tracing` / `frontend.accessLog.otlp`, kept across snapshots; created (with the
   * OpenTelemetry SDK, about 10 MB) by the first snapshot that names an OTLP URL.
   */
  private otlp?: OtlpExporters;
  /** Sockets of CONNECT requests (tunnels, connections handed back to a bind) and the server each came to: no server tracks them. */
  private readonly connectSockets = new Map<Duplex, Server>();
  /** Routes already logged as refusing traffic for an unenforced auth field (once per route and field set). */
  private readonly refusedLogged = new Set<string>();
  private readonly openLogged = new Set<string>();

  constructor(private readonly opts: RuntimeOptions) {
    this.log = opts.log;
    this.metrics = opts.metrics ?? createMetrics();
    this.limits = limitsWith({ ...opts.limits, ...(opts.sessionIdleMs ? { sessionIdleMs: opts.sessionIdleMs } : {}) });
    const l = this.limits;
    // First: a bad catalog stops the start before anything else is opened.
    this.modelCatalog = catalogStore(opts.modelCatalogFiles, this.log, this.metrics);
    configureTargetQueue(l.targetQueue);
    this.sessions = sessionRegistryOf(opts, l, this.log, this.metrics);
    const outliers = (this.outliers = new OutlierDetector(opts.clock ?? Date.now, {
      ejected: (pool, endpoint, reason) => this.metrics.upstreamEjections.inc({ pool, endpoint, reason }),
    }));
    this.metrics.ejected.now = () => outliers.ejectedNow();
    this.extAuth = new ExtAuthClient({
      log: this.log,
      ...(opts.extAuthTimeoutMs ? { timeoutMs: opts.extAuthTimeoutMs } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
    });
    this.forwarder = new HttpForwarder({
      log: this.log,
      metrics: this.metrics,
      extAuth: this.extAuth,
      outliers,
      selfPorts: () => [...this.ports.values()].map((b) => b.port),
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.identity ? { identity: opts.identity } : {}),
    });

    // Built at start-up so a bad GUARDRAIL_WEBHOOK_* value stops the proxy before it serves anything.
    if (!opts.llmGuards) this.guards = createPromptGuards();
    this.llmGuards = opts.llmGuards ?? (this.guards as PromptGuards).llmGuards;
    this.traffic = new TrafficGate(this.log, this.metrics, opts.clock);
    this.extProc = new ExtProcClients(this.log);
    this.globalLimits = new GlobalRateLimits(this.log);
    this.llm = new LlmForwarder({
      log: this.log,
      metrics: this.metrics,
      identities: this.forwarder.identities,
      extAuth: this.extAuth,
      outliers,
      ...(opts.clock ? { clock: opts.clock } : {}),
      catalog: () => this.modelCatalog?.current(),
      ...(opts.identity ? { identity: opts.identity } : {}),
      ...(opts.streamBufferBytes ? { streamBufferBytes: opts.streamBufferBytes } : {}),
    });
    this.endpoint = {
      sessions: this.sessions,
      serverInfo: opts.serverInfo ?? { name: 'gw', title: 'Gw MCP gateway', version: '0.1.0' },
      onMcpMethod: (m) => {
        const label = knownMethods.has(m) ? m : 'other';
        this.child(`mcp ${label}`, () => this.metrics.mcpRequests.labels(label)).inc();
      },
      onToolCall: (target, tool, outcome) => this.metrics.toolCalls.inc({ target, tool, outcome }),
      onTargetFailure: (target, phase) =>
        this.metrics.targetFailures.inc({ target, phase: knownMethods.has(phase) ? phase : 'other' }),
      identities: this.forwarder.identities,
      extAuth: this.extAuth,
    };
    this.services = {
      traffic: this.traffic,
      extAuth: this.extAuth,
      extProc: this.extProc,
      globalLimits: this.globalLimits,
      llm: this.llm,
      forwarder: this.forwarder,
      endpoint: this.endpoint,
      // The cache key is the label, never the client's method name (unbounded: any string a client sends).
      onA2aMethod: (m) => {
        const label = a2aMethods.has(m) ? m : 'other';
        this.child(`a2a ${label}`, () => this.metrics.a2aRequests.labels(label)).inc();
      },
    };
    opts.identity?.on('update', this.onIdentity);
  }

  /** A rotated identity: binds serving or verifying with it get new tables (new handshakes; open connections keep theirs). */
  private readonly onIdentity = (s: IdentitySnapshot): void => {
    const listeners = this.current ? [...resourcesOf(this.current, 'listener').values()] : [];
    if (!usesIdentity(listeners)) return;
    const tables = bindTlsOf(listeners, s);
    for (const [name, bound] of this.ports) {
      const table = tables.get(name);
      if (bound.tls && table && bound.tls.sameServer(table)) bound.tls.update(table);
    }
  };

  get ready(): boolean {
    return this.applied && !this.draining;
  }

  /**
   * Graceful shutdown (SIGTERM): unready at once, serving as before for `drainMinMs`; then connections close
   * after their response and GET event streams end, the listeners accept for as long again (at most half of
   * what is left, for a load balancer late to notice) and stop, and at `drainMaxMs` after the call whatever
   * is left is cut; then `close`. `plan` overrides the limits' delays (SIGINT uses 0).
   */
  async drain(plan: Partial<DrainPlan> = {}): Promise<'drained' | 'cut'> {
    const minMs = plan.minMs ?? this.limits.drainMinMs;
    const maxMs = Math.max(minMs, plan.maxMs ?? this.limits.drainMaxMs);
    this.draining = true;
    this.log.info({ minDelayMs: minMs, maxDelayMs: maxMs }, 'draining: readiness is false; still serving');
    if (minMs > 0) await new Promise((r) => setTimeout(r, minMs));
    // GOAWAY: HTTP/2 clients finish their streams and open no new ones here.
    for (const b of this.ports.values()) b.h2?.closeGracefully();
    const outcome = await drainServers(
      [...this.ports.values()].map((b) => b.server),
      this.inFlight,
      {
        budgetMs: maxMs - minMs,
        acceptMs: Math.min(minMs, (maxMs - minMs) / 2),
        idleGraceMs: plan.idleGraceMs ?? IDLE_GRACE_MS,
      },
    );
    this.log.info(
      { outcome },
      outcome === 'drained' ? 'drained: every connection ended' : 'drain deadline: cut the rest',
    );
    await this.close();
    return outcome;
  }

  /**
   * A labelled metric child, looked up once: prom-client hashes the label object on every call
   * otherwise, which showed in the per-request profile. Keys are bounded (methods, statuses, targets).
   */
  private child<T>(key: string, make: () => T): T {
    let c = this.metricChildren.get(key) as T | undefined;
    if (c === undefined) {
      c = make();
      this.metricChildren.set(key, c);
    }
    return c;
  }

  /** Actual port of each bind (useful when the IR asks for port 0). */
  boundPorts(): Record<string, number> {
    return Object.fromEntries([...this.ports].map(([name, b]) => [name, b.port]));
  }

  async apply(snapshot: Snapshot, source = 'snapshot'): Promise<void> {
    const problems = checkSnapshot(snapshot, source);
    if (problems.length > 0) throw new ProblemError(problems);
    const binds = resourcesOf(snapshot, 'bind');
    const tls = bindTlsOf(resourcesOf(snapshot, 'listener').values(), this.opts.identity?.current);
    const gates = bindNetworkGates(resourcesOf(snapshot, 'listener').values());
    const proxies = bindProxySettings(resourcesOf(snapshot, 'listener').values());
    const settingsOf = (name: string): BindSettings<BindTls> => ({
      tls: tls.get(name),
      gates: gates.get(name),
      proxy: proxies.get(name),
    });
    await this.loadWhatSnapshotUses(snapshot);
    const next = this.compile(snapshot);
    const opened: string[] = [];
    // A bind switching between HTTP and HTTPS keeps its port: the old server closes just before the new one listens.
    const replaced = new Map<string, BoundPort>();
    try {
      for (const [name, bind] of binds) {
        const current = this.ports.get(name);
        if (current && (current.port === bind.port || bind.port === 0) && current.address === bind.address) {
          const table = tls.get(name);
          // Same kind of server, and for HTTPS the same handshake timeout (fixed when a server is created).
          if ((current.tls !== undefined) === (table !== undefined) && (!table || current.tls?.sameServer(table)))
            continue;
          replaced.set(name, current);
          continue;
        }
        if (current)
          throw new ProblemError([
            {
              source,
              object: `Bind ${name}`,
              path: 'port',
              message: `cannot change from ${current.port} to ${bind.port} while running; use a new bind name`,
            },
          ]);
        this.ports.set(name, await this.listen(bind.address, bind.port, settingsOf(name)));
        opened.push(name);
      }
      for (const [name, old] of replaced) {
        this.ports.delete(name);
        this.retire(name, old);
        this.ports.set(name, await this.listen(old.address, old.port, settingsOf(name)));
        opened.push(name);
      }
    } catch (err) {
      for (const name of opened) {
        this.ports.get(name)?.server.close();
        this.ports.delete(name);
      }
      for (const [name, old] of replaced) {
        // Best effort: the port was ours a moment ago, so listening again with the old settings succeeds unless it was taken.
        const previous = { tls: old.tls, gates: old.gate.current, proxy: old.proxy.current };
        const restored = await this.listen(old.address, old.port, previous).catch(() => undefined);
        if (restored) this.ports.set(name, restored);
      }
      throw err;
    }
    this.state = next;
    this.metrics.http.useLabels(metricLabelNames(resourcesOf(snapshot, 'listener').values()));
    this.updateBinds(snapshot, settingsOf);
    for (const [name, bound] of [...this.ports]) {
      if (binds.has(name)) continue;
      this.ports.delete(name);
      this.retire(name, bound);
    }
    this.applied = true;
    this.current = snapshot;
  }

  /** The snapshot serving now; undefined before the first apply. */
  appliedSnapshot(): Snapshot | undefined {
    return this.current;
  }

  /** `pool member` of every endpoint passive health has ejected now. */
  ejectedNow(): Set<string> {
    return new Set([...this.outliers.ejectedNow()].map(([pool, member]) => `${pool} ${member}`));
  }

  /** Loads, once, the libraries only some snapshots need, so `compile` finds them (nothing loads per request). */
  private async loadWhatSnapshotUses(snapshot: Snapshot): Promise<void> {
    const listeners = [...resourcesOf(snapshot, 'listener').values()];
    if (!this.otlp && listeners.some((l) => otlpUrlsOf(l).length > 0))
      this.otlp = new (await import('./telemetry/exporters.js')).OtlpExporters();
    const mcpBackends = [...resourcesOf(snapshot, 'backend').values()].filter((b) => b.mcp);
    if (mcpBackends.length > 0) await loadMcpEndpoint();
    // Streamable-HTTP targets need no SDK (mcp/http-target.ts); stdio and legacy SSE targets do.
    if (mcpBackends.some((b) => b.mcp?.targets.some((t) => !speaksStreamableHttp(t)))) await loadMcpClient();
  }

  /** Swaps the per-port settings of every running server for the snapshot's (new connections get them). */
  private updateBinds(snapshot: Snapshot, settingsOf: (name: string) => BindSettings<BindTls>): void {
    const caps = connectionCaps(resourcesOf(snapshot, 'listener').values());
    const connSettings = bindConnectionSettings(resourcesOf(snapshot, 'listener').values());
    for (const [name, bound] of this.ports) {
      const { tls: table, gates, proxy } = settingsOf(name);
      if (bound.tls && table) bound.tls.update(table);
      // Node closes connections past `maxConnections` as they arrive (frontend.tcp.maxConnections).
      bound.server.maxConnections = caps.get(name) ?? Infinity;
      bound.conn.update(connSettings.get(name));
      bound.gate.update(gates);
      bound.proxy.update(proxy);
      bound.h2?.update(bound.conn.h2);
    }
  }

  /**
   * A bind's server leaving service (removed, or replaced on its port): the port is free at once. Requests
   * already being answered on its connections finish and close them; a request that arrives on one later is
   * answered 421 (`misdirected_request`, open a new connection), never served: the new server's listeners may
   * verify what this connection's handshake did not. Idle connections close after the grace, the rest (tunnels
   * included) is cut at `drainMaxMs` or when the proxy closes.
   */
  private retire(name: string, bound: BoundPort): void {
    this.retired.set(bound.server, { name, bound });
    bound.h2?.closeGracefully();
    void this.inFlight
      .retire(bound.server, { budgetMs: this.limits.drainMaxMs, idleGraceMs: IDLE_GRACE_MS })
      .then((outcome) => {
        this.retired.delete(bound.server);
        for (const [socket, server] of this.connectSockets) if (server === bound.server) socket.destroy();
        bound.h2?.destroyAll();
        this.log.debug({ bind: name, outcome }, 'retired listener closed');
      });
  }

  /** Idempotent: shutdown paths may close twice (the owner and a signal handler); the clients must close once. */
  close(): Promise<void> {
    return (this.closing ??= this.closeOnce());
  }

  private async closeOnce(): Promise<void> {
    this.opts.identity?.off('update', this.onIdentity);
    for (const socket of this.connectSockets.keys()) socket.destroy();
    await Promise.all(
      [...this.ports.values()].map(
        (b) =>
          new Promise<void>((resolve) => {
            b.server.close(() => resolve());
            b.server.closeAllConnections();
            b.h2?.destroyAll();
          }),
      ),
    );
    this.ports.clear();
    for (const { bound } of this.retired.values()) {
      bound.server.closeAllConnections();
      bound.h2?.destroyAll();
    }
    this.retired.clear();
    await this.sessions.closeAll();
    await this.forwarder.close();
    await this.llm.close();
    this.modelCatalog?.close();
    await this.guards?.close();
    await this.extAuth.close();
    this.globalLimits.close();
    this.extProc.close();
    await this.otlp?.close();
  }

  private compile(snapshot: Snapshot): Map<string, CompiledListener[]> {
    const backends = resourcesOf(snapshot, 'backend');
    const listeners = resourcesOf(snapshot, 'listener');
    const models = resourcesOf(snapshot, 'model');
    const routesByListener = new Map<string, CompiledRoute[]>();
    const traffic = this.traffic.compile(resourcesOf(snapshot, 'route').values());
    const processorUrls = new Set<string>();
    for (const route of resourcesOf(snapshot, 'route').values()) {
      // Weighted refs only matter once several backends share a route; sessions pin to the first served one.
      const ref = route.backends.find((b) => b.weight > 0) ?? route.backends[0];
      const mcp = ref ? backends.get(ref.backend)?.mcp : undefined;
      const backend = mcp
        ? mcpBackendWithTls(mcpBackendWithCredentials(mcp, ref), ref, (host, connection) =>
            this.forwarder.connectionDispatcher(ref?.backend ?? '', host, connection),
          )
        : undefined;
      const maxRequestBytes =
        route.policy?.maxRequestBytes || listenerBufferSize(route, listeners) || defaultMaxRequestBytes;
      const llm = backend
        ? undefined
        : compileLlmRoute(route, backends, models.values(), maxRequestBytes, traffic.get(route.name)?.plan, (r) =>
            countedGuards(this.llmGuards(route, r, this.log.child({ route: route.name })), this.metrics),
          );
      const forward =
        backend || llm ? undefined : forwardRouteOf(route, backends, maxRequestBytes, traffic.get(route.name)?.plan);
      const ext = externalServices(route, llm !== undefined);
      if (ext.plan.extProc) processorUrls.add(ext.plan.extProc.url);
      if (ext.plan.globalRateLimit) this.globalLimits.connect(ext.plan.globalRateLimit);
      const identity = backend ? identityTargets(backend) : [];
      const perEdge = edgeExtAuth(route, ref, mcp ?? undefined);
      const compiled: CompiledRoute = {
        name: route.name,
        route,
        backend: backend ?? noMcpBackend,
        ...(identity.length > 0 ? { identityTargets: identity } : {}),
        ...(perEdge.targetExtAuth ? { targetExtAuth: perEdge.targetExtAuth } : {}),
        forward,
        llm,
        traffic: traffic.get(route.name),
        ...ext.plan,
        security: this.opts.security?.(route, this.log.child({ route: route.name })) ?? {},
        maxRequestBytes,
        unenforced: [
          ...refusedSecurity(route, { security: this.opts.security !== undefined }),
          ...ext.unenforced,
          ...perEdge.unenforced,
          // Prompt guards run only where the LLM forwarder reads the prompt; anywhere else they would be skipped silently.
          ...(!llm && route.backends.some((b) => b.promptGuard)
            ? ['backend.ai.promptGuard (its backend is not an ai backend)']
            : []),
          ...(backend ? [identityRefusal(backend)].filter((r) => r !== undefined) : []),
        ],
        noBackend: !backend && !forward && !llm,
      };
      if (backend) this.addMcpCallPlan(compiled, backend, ref, traffic.get(route.name)?.plan);
      this.logRefused(compiled);
      this.logOpenProxy(compiled);
      for (const l of route.listeners) routesByListener.set(l, [...(routesByListener.get(l) ?? []), compiled]);
    }
    const out = new Map<string, CompiledListener[]>();
    const otlpUrls = new Set<string>();
    for (const l of listeners.values())
      out.set(l.bind, [
        ...(out.get(l.bind) ?? []),
        this.compileListener(l, routesByListener.get(l.name) ?? [], otlpUrls),
      ]);
    void this.otlp?.retain(otlpUrls);
    this.extProc.retain(processorUrls);
    return out;
  }

  /** What only MCP routes carry: each call's timeout, retries, the targets' passive health, guardrails. */
  private addMcpCallPlan(
    compiled: CompiledRoute,
    backend: McpBackend,
    ref: BackendRef | undefined,
    plan: TrafficPlan | undefined,
  ): void {
    const route = compiled.route;
    // On MCP routes a JSON-RPC call to a target is the backend request; the client's POST lasts as long.
    const timeouts = routeTimeouts(route, plan);
    const callTimeoutMs = timeouts?.backendRequestMs || timeouts?.requestMs;
    if (callTimeoutMs) compiled.callTimeoutMs = callTimeoutMs;
    const targetTimeouts = callTimeoutMs ? undefined : targetRequestTimeouts(backend, ref);
    if (targetTimeouts) compiled.targetCallTimeoutMs = targetTimeouts;
    if (plan?.retry) compiled.retry = plan.retry;
    const health = targetHealthOf(this.outliers, route.name, backend, ref, this.opts.clock ?? Date.now);
    if (health) compiled.health = health;
    if (ref?.mcpGuardrails)
      compiled.guardrails = compileGuardrails(ref.mcpGuardrails, this.log.child({ route: route.name }));
  }

  /** One listener's routes and settings; the OTLP URLs its telemetry uses are added to `otlpUrls`. */
  private compileListener(l: Listener, routes: CompiledRoute[], otlpUrls: Set<string>): CompiledListener {
    const telemetry = listenerTelemetryOf(l, this.otlp, this.log, otlpUrls, this.accessTail);
    const max = l.limits?.maxConcurrentRequests;
    const connect = this.connectPlan(l);
    return {
      name: l.name,
      hostnames: l.hostnames,
      routes,
      match: compileRouteMatcher(routes, l.hostnames),
      ...authEndpointsOf(routes),
      ...(max ? { concurrency: { max, counter: this.inFlightCounter(l.name) } } : {}),
      ...(l.limits?.http1MaxHeaders ? { maxHeaders: l.limits.http1MaxHeaders } : {}),
      ...(l.limits?.http1PreserveHeaderCase ? { preserveHeaderCase: true } : {}),
      ...(telemetry ? { telemetry } : {}),
      ...(connect ? { connect } : {}),
    };
  }

  /** `frontend.connect.mode`; Tunnel hands the socket to the listener's bind as a new connection. */
  private connectPlan(l: Listener): ConnectPlan | undefined {
    switch (l.connectMode) {
      case 'CONNECT_DENY':
        return { mode: 'deny' };
      case 'CONNECT_ROUTE':
        return { mode: 'route' };
      case 'CONNECT_TUNNEL':
        return { mode: 'tunnel', reenter: (socket) => this.ports.get(l.bind)?.proxy.reenter(socket) };
      default:
        return undefined;
    }
  }

  /** The HTTP (h2c beside HTTP/1.1) or HTTPS (h2 by ALPN) server of a bind, dispatching to the pipeline. */
  private bindServer(live: TlsBind | undefined): { server: Server; h2: H2Sessions } {
    const handler = (req: IncomingMessage, res: ServerResponse): void => void this.dispatch(server, req, res);
    let server: Server;
    if (!live) {
      server = createServer(listenerServerOptions(this.limits), handler);
      // h2c with prior knowledge beside HTTP/1.1: a client silent past the header timeout is closed.
      const h2 = new H2Sessions(server, (req, res) => server.emit('request', req, res), {
        prefaceTimeoutMs: this.limits.headersTimeoutMs,
      });
      return { server, h2 };
    }
    const https = createHttpsServer({ ...listenerServerOptions(this.limits), ...live.serverOptions() }, (req, res) => {
      const sni = (req.socket as TLSSocket).servername;
      // HTTP/2 names the host in `:authority` (adaptHttp2 copies it to Host later, for routing).
      const authority = req.headers[':authority'];
      const host = req.headers.host ?? (typeof authority === 'string' ? authority : undefined);
      if (live.misdirected(sni, host))
        sendError(
          res,
          'misdirected_request',
          `host ${host ?? ''} is not served on a connection opened for ${String(sni)}; open a new connection`,
        );
      else handler(req, res);
    });
    live.attach(https);
    server = https;
    const h2 = new H2Sessions(server, (req, res) => server.emit('request', req, res));
    // After H2Sessions took the HTTP/1.1 handler, before it runs: a refused client gets no request served.
    https.prependListener('secureConnection', (socket: TLSSocket) => {
      const refused = live.refusedClient(socket);
      if (!refused) return;
      this.log.debug({ reason: refused }, 'TLS client refused: no acceptable SPIFFE identity');
      socket.destroy();
    });
    return { server, h2 };
  }

  /**
   * HTTP/1.1 CONNECT arrives as the server's `connect` event, not as a request: it walks the pipeline on a
   * response of its own. Node's server stops tracking the socket then, so the runtime does (close, drain).
   */
  private serveConnect(server: Server): void {
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.connectSockets.set(socket, server);
      socket.once('close', () => this.connectSockets.delete(socket));
      void this.dispatch(server, req, connectResponse(req, socket, head));
    });
  }

  private listen(
    address: string,
    port: number,
    { tls, gates, proxy: proxySettings }: BindSettings,
  ): Promise<BoundPort> {
    return new Promise((resolve, reject) => {
      const live = tls instanceof TlsBind ? tls : tls ? new TlsBind(tls) : undefined;
      const { server, h2 } = this.bindServer(live);
      // First, so a refused connection is closed before anything else counts or configures it.
      const gate = new NetworkGate(server, this.log, () => this.metrics.connectionsDenied.inc());
      gate.update(gates);
      this.serveConnect(server);
      const conn = new ConnectionSettings(
        server,
        this.limits.keepAliveTimeoutMs,
        live ? 'secureConnection' : 'connection',
      );
      capConnectionsPerSource(server, this.limits.maxConnectionsPerSource, this.log, () =>
        this.metrics.connectionsRefused.inc(),
      );
      // Last: it takes over every connection listener above, which then see the client the PROXY header names.
      const proxy = new ProxyProtocolGate(server, live !== undefined, this.limits.headersTimeoutMs, this.log, () =>
        this.metrics.proxyProtocolRejected.inc(),
      );
      proxy.update(proxySettings);
      server.once('error', (err) =>
        reject(
          new ProblemError([
            {
              source: 'runtime',
              path: 'port',
              message: `cannot listen on ${address || '*'}:${port}: ${(err as NodeJS.ErrnoException).code ?? err.message}`,
            },
          ]),
        ),
      );
      // Failed handshakes are the client's business (wrong CA, no shared cipher); the reason is enough.
      if (live)
        server.on('tlsClientError', (err: NodeJS.ErrnoException) =>
          this.log.debug({ port, code: err.code }, 'TLS handshake failed'),
        );
      server.listen(port, address || undefined, () => {
        server.removeAllListeners('error');
        server.on('error', (err) => this.log.error({ err }, 'listener error'));
        const actual = (server.address() as AddressInfo).port;
        resolve({
          server,
          address,
          port: actual,
          conn,
          gate,
          proxy,
          ...(live ? { tls: live } : {}),
          ...(h2 ? { h2 } : {}),
        });
      });
    });
  }

  private readonly inFlightCounters = new Map<string, { inFlight: number }>();

  private inFlightCounter(listener: string): { inFlight: number } {
    let c = this.inFlightCounters.get(listener);
    if (!c) this.inFlightCounters.set(listener, (c = { inFlight: 0 }));
    return c;
  }

  private logRefused(r: CompiledRoute): void {
    const key = `${r.name} ${r.unenforced.join(',')}`;
    if (r.unenforced.length === 0 || this.refusedLogged.has(key)) return;
    this.refusedLogged.add(key);
    // Which object set each field and why (an invalid GwPolicy names its first problem): read once per snapshot, never per request.
    const refusals = (r.route.refusals ?? [])
      .filter((x) => x.security)
      .map((x) => ({ field: x.field, source: x.source, reason: x.reason }));
    this.log.error(
      { route: r.name, fields: r.unenforced, ...(refusals.length ? { refusals } : {}) },
      'route policy asks for authentication or authorization this proxy does not enforce; refusing all its requests with 503',
    );
  }

  /** Once per route, when the configuration is applied: a dynamic forward proxy nobody's policy restricts. */
  private logOpenProxy(r: CompiledRoute): void {
    if (!r.forward?.openProxy || this.openLogged.has(r.name)) return;
    this.openLogged.add(r.name);
    this.log.warn(
      { route: r.name },
      'route forwards to any host its clients name and its policy sets no authentication or authorization',
    );
  }

  private bindOf(server: Server): string | undefined {
    for (const [name, b] of this.ports) if (b.server === server) return name;
    return undefined;
  }

  private async dispatch(server: Server, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const start = process.hrtime.bigint();
    adaptHttp2(req, res);
    this.inFlight.track(req, res, server);
    res.on('close', () => {
      const status = res.statusCode;
      // Telemetry first: the labels a listener adds to the request metrics are valued from its finished facts.
      const telemetry = telemetryOf(res);
      telemetry?.end(res);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      this.metrics.http.record(req.method ?? 'OTHER', status, seconds, telemetry?.metricLabels());
      const route = routeOfResponse.get(res) ?? '-';
      const cls = `${Math.trunc(status / 100)}xx`;
      this.child(`route ${route} ${cls}`, () => this.metrics.routeRequests.labels(route, cls)).observe(seconds);
      const code = errorCodeOf(res);
      if (code) this.metrics.errors.child(`${code} ${status}`, { code, status: String(status) }).inc();
    });
    try {
      await this.route(server, req, res);
    } catch (err) {
      this.log.error({ err, path: req.url }, 'request failed');
      sendError(res, 'internal_error', 'the proxy failed to handle the request');
    }
  }

  private route(server: Server, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const retired = this.retired.get(server);
    if (retired) {
      sendError(
        res,
        'misdirected_request',
        `this connection was opened on listener bind ${retired.name} before a configuration change replaced or removed it; open a new one`,
      );
      return Promise.resolve();
    }
    const bind = this.bindOf(server) ?? '';
    const listeners = this.state.get(bind) ?? [];
    const target = parseRequestTarget(req.method, req.url);
    // Parsed once: every later reader of req.url and Host (policy, filters, the upstream) sees what was matched.
    if (target.kind === 'origin') {
      req.url = target.url;
      if (target.host) req.headers.host = target.host;
    } else if (target.kind === 'authority' && req.url) req.url = normalizeHost(req.url);
    if (req.headers.host) req.headers.host = normalizeHost(req.headers.host);
    const { host, path, query } = matchTarget(req.method, req.url, req.headers.host);
    const listener = selectListener(listeners, host);
    // The listener routed to, however its host was named (Host, an absolute-form target, CONNECT, none):
    // one that verifies clients serves only connections whose handshake it verified.
    const tls = this.ports.get(bind)?.tls;
    if (listener && tls?.unverifiedFor(listener.name, (req.socket as TLSSocket).servername)) {
      sendError(
        res,
        'misdirected_request',
        `host ${host} is served only on a connection opened for it; open a new one`,
      );
      return Promise.resolve();
    }
    const routable = target.kind === 'origin' || target.kind === 'authority';
    const route = routable
      ? listener?.match({ host, method: req.method ?? 'GET', path, query, headers: req.headers })
      : undefined;
    if (route) routeOfResponse.set(res, route.name);
    const telemetry = listener?.telemetry?.start(req, res, route?.name, path);
    return runPipeline(
      { req, res, listener, route, target, path, claims: null, clientAuthorization: undefined, telemetry },
      this.services,
    );
  }
}

/** The store of the model catalog files, counted in `metrics`; undefined without files. Throws on a bad file. */
function catalogStore(
  files: readonly string[] | undefined,
  log: Logger,
  metrics: ProxyMetrics,
): ModelCatalogStore | undefined {
  if (!files?.length) return undefined;
  return new ModelCatalogStore({
    files,
    log,
    onReload: (result, models) => {
      metrics.catalogReloads.inc({ result });
      metrics.catalogModels.set(models);
    },
  });
}

/** The MCP session registry of these limits, counted in the proxy's metrics. */
function sessionRegistryOf(opts: RuntimeOptions, l: ProxyLimits, log: Logger, metrics: ProxyMetrics): SessionRegistry {
  return new SessionRegistry(
    log,
    {
      maxSessions: l.maxSessions,
      maxSessionsPerClient: l.maxSessionsPerClient,
      idleMs: l.sessionIdleMs,
      maxAgeMs: l.sessionMaxAgeMs,
      inputTimeoutMs: l.mcpInputTimeoutMs,
    },
    {
      onCount: (n) => metrics.sessions.set(n),
      onExpired: () => metrics.sessionsExpired.inc(),
      onRefused: (reason) => metrics.sessionsRefused.inc({ reason }),
    },
    opts.sessionKeys,
    opts.clock,
  );
}
