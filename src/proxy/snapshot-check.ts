// Consistency of an IR snapshot before the runtime applies it: every reference resolves, names are
// unique, and every backend kind is one this proxy serves (MCP; static, a2a and dynamicForwardProxy as plain HTTP; ai as LLM;
// aws as AgentCore invocations).
// Pure; returns problems, applies nothing.
import type { Problem } from '../problem.js';
import type { Backend, Listener, Resource, Route, Snapshot } from '../ir/types.js';
import { resourcesOf } from '../ir/load.js';
import { agentCoreTargetOf } from './http/agentcore.js';
import { credentialProblems } from './backend-auth.js';
import { httpAddressOf } from './http/http-forward.js';
import { parseEndpoint } from './net/endpoint.js';
import { cidrProblem } from './net/public-address.js';
import { aiProblems } from './llm/llm-route.js';
import { listenerTlsProblems } from './http/listener-tls.js';
import { keepaliveProblems, upstreamKeepaliveProblems } from './http/connection-settings.js';
import { proxyProtocolProblems } from './http/proxy-protocol.js';
import { metricLabelProblems } from './telemetry/metric-labels.js';
import { trafficProblems } from './policy/traffic-policy.js';
import { backendTlsProblems } from './http/upstream-tls.js';

export function checkSnapshot(snapshot: Snapshot, source: string): Problem[] {
  const { problems, has } = uniqueNames(snapshot, source);
  for (const r of snapshot.resources) {
    problems.push(...referenceProblems(r, has, source));
    if (r.kind === 'backend' && r.backend) problems.push(...backendProblems(r.backend, source));
  }
  problems.push(...httpsProblems(snapshot, source));
  problems.push(...proxyProtocolProblems(resourcesOf(snapshot, 'listener').values(), source));
  for (const l of resourcesOf(snapshot, 'listener').values()) problems.push(...metricLabelProblems(l, source));
  problems.push(...keepaliveProblems(resourcesOf(snapshot, 'listener').values(), source));
  problems.push(...upstreamKeepaliveProblems(resourcesOf(snapshot, 'route').values(), source));
  problems.push(...trafficProblems(snapshot, source));
  problems.push(...backendTlsProblems(snapshot, source));
  problems.push(...aiProblems(snapshot, source));
  problems.push(...credentialProblems(snapshot, source));
  return problems;
}

/** Every resource's name is set and unique within its kind; `has` answers whether a name exists. */
function uniqueNames(
  snapshot: Snapshot,
  source: string,
): { problems: Problem[]; has: (kind: string, name: string) => boolean } {
  const problems: Problem[] = [];
  const names = new Map<string, Set<string>>();
  for (const r of snapshot.resources) {
    const v = r.kind ? r[r.kind] : undefined;
    if (!r.kind || !v) continue;
    const object = `${cap(r.kind)} ${v.name}`;
    const seen = names.get(r.kind) ?? new Set<string>();
    if (v.name === '') problems.push({ source, object, path: 'name', message: 'must not be empty' });
    else if (seen.has(v.name))
      problems.push({ source, object, path: 'name', message: `duplicates another ${r.kind} named ${v.name}` });
    seen.add(v.name);
    names.set(r.kind, seen);
  }
  return { problems, has: (kind, name) => names.get(kind)?.has(name) ?? false };
}

/** A listener's bind and a route's listeners and backends that `has` does not know. */
export function referenceProblems(
  r: Resource,
  has: (kind: string, name: string) => boolean,
  source: string,
): Problem[] {
  if (r.kind === 'listener' && r.listener && !has('bind', r.listener.bind))
    return [
      {
        source,
        object: `Listener ${r.listener.name}`,
        path: 'bind',
        message: `refers to bind ${r.listener.bind}, which does not exist`,
      },
    ];
  return r.kind === 'route' && r.route ? routeReferenceProblems(r.route, has, source) : [];
}

function routeReferenceProblems(route: Route, has: (kind: string, name: string) => boolean, source: string): Problem[] {
  const problems: Problem[] = [];
  const object = `Route ${route.name}`;
  route.listeners.forEach((l, i) => {
    if (!has('listener', l))
      problems.push({
        source,
        object,
        path: `listeners[${i}]`,
        message: `refers to listener ${l}, which does not exist`,
      });
  });
  route.backends.forEach((b, i) => {
    if (!has('backend', b.backend))
      problems.push({
        source,
        object,
        path: `backends[${i}].backend`,
        message: `refers to backend ${b.backend}, which does not exist`,
      });
  });
  return problems;
}

/** A backend is of a kind this proxy serves, with the address or targets that kind needs. */
function backendProblems(b: Backend, source: string): Problem[] {
  const object = `Backend ${b.name}`;
  const http = httpAddressOf(b);
  if (http) {
    const problems: Problem[] = [];
    if (http.host === '') problems.push({ source, object, path: `${b.kind}.host`, message: 'must not be empty' });
    if (!Number.isInteger(http.port) || http.port < 1 || http.port > 65535)
      problems.push({
        source,
        object,
        path: `${b.kind}.port`,
        message: `must be between 1 and 65535, got ${http.port}`,
      });
    (b.static?.endpoints ?? []).forEach((e, j) => {
      if (!parseEndpoint(e))
        problems.push({ source, object, path: `static.endpoints[${j}]`, message: `must be ip:port, got ${e}` });
    });
    return problems;
  }
  if (b.kind === 'aws' && b.aws) {
    const core = agentCoreTargetOf(b.aws);
    return typeof core === 'string' ? [{ source, object, path: 'aws.agentRuntimeArn', message: core }] : [];
  }
  // ai: checked with the edges' AI settings in aiProblems.
  if (b.kind === 'ai' && b.ai) return [];
  if (b.kind === 'dynamicForwardProxy' && b.dynamicForwardProxy)
    return b.dynamicForwardProxy.allowedDestinations.flatMap((cidr, i) => {
      const message = cidrProblem(cidr);
      return message ? [{ source, object, path: `dynamicForwardProxy.allowedDestinations[${i}]`, message }] : [];
    });
  if (b.kind !== 'mcp' || !b.mcp)
    return [
      {
        source,
        object,
        path: b.kind ?? '',
        message: `backend kind ${b.kind ?? 'unset'} is not served by this proxy yet`,
      },
    ];
  return b.mcp.targets.flatMap((t, i) =>
    t.transport ? [] : [{ source, object, path: `mcp.targets[${i}]`, message: 'must set stdio or remote' }],
  );
}

/**
 * A port serves either plain HTTP or TLS (the first listener of a bind, in snapshot order, decides);
 * HTTPS listeners carry usable certificates, HTTP ones none.
 */
function httpsProblems(snapshot: Snapshot, source: string): Problem[] {
  const problems: Problem[] = [];
  const firstOnBind = new Map<string, Listener>();
  for (const r of snapshot.resources) {
    if (r.kind !== 'listener' || !r.listener) continue;
    const l = r.listener;
    const object = `Listener ${l.name}`;
    const first = firstOnBind.get(l.bind);
    if (!first) firstOnBind.set(l.bind, l);
    else if ((first.protocol === 'HTTPS') !== (l.protocol === 'HTTPS')) {
      problems.push({
        source,
        object,
        path: 'protocol',
        message: `is ${l.protocol} but bind ${l.bind} already serves ${first.protocol} listener ${first.name}; one port serves either plain HTTP or HTTPS`,
      });
      continue;
    }
    if (l.protocol === 'HTTPS') problems.push(...listenerTlsProblems(l, source));
    else if (l.tls)
      problems.push({ source, object, path: 'tls', message: `must not be set when protocol is ${l.protocol}` });
  }
  return problems;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
