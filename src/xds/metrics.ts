// xDS metrics, registered on the Registry the caller passes (the controller serves it on :9092).
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface XdsMetrics {
  connected: Gauge;
  pushes: Counter;
  pushToAck: Histogram;
  nacks: Counter<'gateway'>;
  refused: Counter<'reason'>;
}

export function createXdsMetrics(registry: Registry = new Registry()): XdsMetrics {
  const registers = [registry];
  return {
    connected: new Gauge({ name: 'gw_xds_connected_proxies', help: 'Proxies with an open xDS stream.', registers }),
    pushes: new Counter({ name: 'gw_xds_pushes_total', help: 'xDS responses sent to proxies.', registers }),
    pushToAck: new Histogram({
      name: 'gw_xds_push_ack_seconds',
      help: 'Time from sending an xDS response to receiving its ACK or NACK.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    nacks: new Counter({
      name: 'gw_xds_nacks_total',
      help: 'xDS responses a proxy rejected in part.',
      labelNames: ['gateway'],
      registers,
    }),
    refused: new Counter({
      name: 'gw_xds_streams_refused_total',
      help: 'xDS streams refused, by reason (not_ready, unauthenticated, permission_denied, invalid).',
      labelNames: ['reason'],
      registers,
    }),
  };
}
