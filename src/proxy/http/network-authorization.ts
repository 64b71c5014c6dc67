// GwPolicy `frontend.networkAuthorization`: CEL rules over a connection's source and destination decide
// whether it is served at all. They run on the TCP connection, before TLS or any HTTP byte, so they hold per
// port: a connection must be allowed by every listener on its port that sets rules (the strictest wins).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Listener } from '../../ir/types.js';
import { compileConnectionAuthorization, ruleActions, type ConnectionAttributes } from '../auth/authorization.js';

/** Whether one listener's rules allow a connection. */
export type ConnectionGate = (conn: ConnectionAttributes) => boolean;

/**
 * Bind → the gates of its listeners. An expression that does not compile (the translator refuses such
 * policies, so only a hand-written IR gets here) throws a ProblemError naming the listener's rule.
 */
export function bindNetworkGates(listeners: Iterable<Listener>): Map<string, ConnectionGate[]> {
  const out = new Map<string, ConnectionGate[]>();
  for (const l of listeners) {
    const rules = l.networkAuthorization?.rules ?? [];
    if (rules.length === 0) continue;
    const gate = compileConnectionAuthorization(
      rules.map((r) => ({ expressions: r.expressions, action: ruleActions[r.action] })),
      `listener ${l.name} networkAuthorization.rules`,
      'snapshot',
    );
    out.set(l.bind, [...(out.get(l.bind) ?? []), gate]);
  }
  return out;
}

/** The live gates of one server; `update` swaps them for connections accepted afterwards. */
export class NetworkGate {
  private gates: ConnectionGate[] = [];

  constructor(server: Server, log: Logger, onDenied: () => void) {
    // Registered before the other connection handlers count or configure the socket.
    server.prependListener('connection', (socket: Socket) => {
      if (this.gates.length === 0) return;
      const conn: ConnectionAttributes = {
        source: { address: unmapped(socket.remoteAddress), port: socket.remotePort ?? 0 },
        destination: { address: unmapped(socket.localAddress), port: socket.localPort ?? 0 },
      };
      if (this.gates.every((allows) => allows(conn))) return;
      onDenied();
      log.debug(
        { source: conn.source.address, port: conn.destination.port },
        'connection refused by networkAuthorization',
      );
      socket.destroy();
    });
  }

  update(gates: ConnectionGate[] | undefined): void {
    this.gates = gates ?? [];
  }

  get current(): ConnectionGate[] {
    return this.gates;
  }
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) → `10.0.0.1`, so rules compare the address users write. */
function unmapped(address: string | undefined): string {
  const a = address ?? '';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}
