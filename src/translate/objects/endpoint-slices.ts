// EndpointSlices (discovery.k8s.io/v1) of a Service, read as written: the ready endpoints the proxy dials
// directly (a Service backendRef's per-Pod members, an endpoint picker's address), as Envoy reaches them by EDS.
import { lookup, read, type Ctx } from './context.js';
import { serviceSpec } from './gateway-api.js';

interface SliceEndpoint {
  addresses?: string[];
  conditions?: { ready?: boolean };
}

/** `ip:port` of the ready endpoints the Service's EndpointSlices list for its port `portName`; sorted. */
export function readyEndpoints(ctx: Ctx, ns: string, service: string, portName: string): string[] {
  const out = new Set<string>();
  for (const key of lookup(ctx, 'byNamespace', `EndpointSlice/${ns}`)) {
    const slice = read(ctx, 'EndpointSlice', key);
    const o = slice?.obj as { endpoints?: unknown; ports?: unknown } | undefined;
    if (!slice || slice.obj.metadata.labels?.['kubernetes.io/service-name'] !== service) continue;
    const ports = Array.isArray(o?.ports) ? (o.ports as { name?: string; port?: number }[]) : [];
    const port = ports.find((p) => (p.name ?? '') === portName)?.port;
    if (!port) continue;
    // An unset `ready` means ready (the API's rule for consumers).
    for (const e of Array.isArray(o?.endpoints) ? (o.endpoints as SliceEndpoint[]) : []) {
      if (e.conditions?.ready === false) continue;
      for (const ip of e.addresses ?? []) out.add(ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);
    }
  }
  return [...out].sort();
}

/** The ready endpoints of the Service `ns/name` for its port number `port`; empty when it or its slices are unknown. */
export function serviceEndpoints(ctx: Ctx, ns: string, name: string, port: number): string[] {
  const svc = read(ctx, 'Service', `${ns}/${name}`);
  if (!svc) return [];
  const found = (serviceSpec(svc).ports ?? []).find((p) => p.port === port);
  // A Service's only port may be unnamed; its slices then name it ''.
  return found ? readyEndpoints(ctx, ns, name, found.name ?? '') : [];
}
