// `ip:port` / `[ipv6]:port` endpoints the IR carries (a Service's ready Pods, an InferencePool's): read once here.
import { isIP } from 'node:net';

export interface Endpoint {
  /** The IP literal, without brackets. */
  address: string;
  port: number;
}

/** The endpoint `ip:port` names, or undefined unless it is an IP literal and a port between 1 and 65535. */
export function parseEndpoint(text: string): Endpoint | undefined {
  const i = text.lastIndexOf(':');
  if (i <= 0) return undefined;
  const host = text.slice(0, i);
  const address = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const port = Number(text.slice(i + 1));
  const family = isIP(address);
  if (family === 0 || (family === 6) !== host.startsWith('[')) return undefined;
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? { address, port } : undefined;
}
