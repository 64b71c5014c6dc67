import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A port that was free a moment ago, for code paths that only take a fixed port (config files).
 * It is drawn below the kernel's ephemeral range, so no other test's `listen(0)` or outgoing
 * connection can be given it between this check and the caller's bind: a port from `listen(0)`
 * can be handed out again at once to a suite running in parallel.
 */
export async function freePort(): Promise<number> {
  const low = Math.max(1024, ephemeralLow() - 12_000);
  const high = ephemeralLow() - 1;
  for (let tries = 0; tries < 200; tries++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`freePort: no free port in ${low}-${high} after 200 tries`);
}

/** The first port of the kernel's ephemeral range (32768 where it cannot be read). */
function ephemeralLow(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 13_024 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

export async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
