// What dialling a CONNECT tunnel needs from the forwarder that owns it: its own file, so the forwarder
// (which hands it out) and the tunnel (which uses it) do not import each other.
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { BackendTls } from '../../ir/types.js';
import type { ProxyMetrics } from '../metrics.js';
import type { Resolve } from './dynamic-forward.js';

export interface TunnelDialer {
  log: Logger;
  metrics: ProxyMetrics;
  random: () => number;
  resolve: Resolve;
  /** This proxy's listener ports, and the addresses of this machine: a destination among them is a loop. */
  selfPorts: () => Iterable<number>;
  local: ReadonlySet<string>;
  tlsOptions: (backend: string, host: string, tls: BackendTls) => ConnectionOptions;
  connectTimeoutMs: number;
}
