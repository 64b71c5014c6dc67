// Limits that keep one client from locking a listener or the MCP route: how many sessions, how many
// connections from one address, and how long the proxy waits for a client. docs/proxy.md "Limits".

export interface ProxyLimits {
  /** Open MCP sessions in this proxy; an initialize beyond it answers 503 overloaded. */
  maxSessions: number;
  /** Open MCP sessions of one client (token issuer + subject, else source address); 429 beyond it. */
  maxSessionsPerClient: number;
  /** A session with no request in flight and no open GET stream is let go after this long (resumable again). */
  sessionIdleMs: number;
  /** A sealed session id opens on any replica for this long after initialize; then 404 (session-seal.ts). */
  sessionMaxAgeMs: number;
  /** Time a client has to send its request headers (slowloris); 408 and close after it. */
  headersTimeoutMs: number;
  /** Time a client has to send its whole request, body included. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Open connections from one source address per listener; 0 means no cap. Further ones are closed at once. */
  maxConnectionsPerSource: number;
  /**
   * A 2026 client's requestState answering a 2025 target's questions expires after this long (capped by the
   * call's timeout); a call held for it is cancelled then and its target session ended (input-bridge.ts).
   */
  mcpInputTimeoutMs: number;
  /** Requests that may wait for a connection to one MCP target (256 per target); more fail at once (503 / error). */
  targetQueue: number;
  /** On SIGTERM: keep serving (unready) this long before closing listeners (GwParameters shutdown.minDelay). */
  drainMinMs: number;
  /** On SIGTERM: cut what is still open this long after the signal (GwParameters shutdown.maxDelay). */
  drainMaxMs: number;
}

export const defaultLimits: ProxyLimits = {
  maxSessions: 4000,
  maxSessionsPerClient: 100,
  sessionIdleMs: 30 * 60_000,
  sessionMaxAgeMs: 24 * 3600_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 65_000,
  maxConnectionsPerSource: 1024,
  mcpInputTimeoutMs: 120_000,
  targetQueue: 1024,
  drainMinMs: 0,
  drainMaxMs: 20_000,
};

export function limitsWith(overrides: Partial<ProxyLimits> | undefined): ProxyLimits {
  const out = { ...defaultLimits };
  for (const [k, v] of Object.entries(overrides ?? {}) as [keyof ProxyLimits, number | undefined][])
    if (v !== undefined) out[k] = v;
  // Node requires the whole-request bound to be at least the headers bound.
  if (out.requestTimeoutMs > 0 && out.requestTimeoutMs < out.headersTimeoutMs)
    out.requestTimeoutMs = out.headersTimeoutMs;
  if (out.drainMaxMs < out.drainMinMs) out.drainMaxMs = out.drainMinMs;
  return out;
}
