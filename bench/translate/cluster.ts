// A synthetic cluster for the translation benchmark, scaled by `scale` (1 = the issue's target size:
// 100 gateways, 10,000 route rules, 10,000 policies, 1,000 backends). The store functions are passed in
// so the same cluster can be built by another tree's compiled translator (main.ts, BENCH_TREE).
import type { Store } from '../../src/translate/objects/store.js';
import type * as StoreModule from '../../src/translate/objects/store.js';
import type { Kind, KubeObject } from '../../src/translate/objects/types.js';

export type StoreApi = Pick<typeof StoreModule, 'createStore' | 'putObject'>;

export interface Cluster {
  store: Store;
  /** Keys of rule-level policies, to change one at a time. */
  rulePolicies: string[];
  counts: Record<string, number>;
}

const GW = 'gateway.networking.k8s.io';

export function syntheticCluster(api: StoreApi, scale: number): Cluster {
  const { createStore, putObject } = api;
  const store = createStore();
  const counts: Record<string, number> = {};
  const put = (kind: Kind, obj: KubeObject) => {
    const e = putObject(store, kind, obj, 'bench');
    if (e.problems.length)
      throw new Error(
        `synthetic ${kind} ${e.key} is invalid: ${e.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      );
    counts[kind] = (counts[kind] ?? 0) + 1;
  };
  const gateways = 100 * scale,
    routesPerGateway = 25,
    rulesPerRoute = 4,
    backends = 1000 * scale;
  const ns = (i: number) => `ns-${i % 10}`;
  put('GatewayClass', {
    kind: 'GatewayClass',
    metadata: { name: 'gw' },
    spec: { controllerName: 'gw.dev/gateway-controller' },
  });
  for (let b = 0; b < backends; b++) {
    const spec =
      b % 3 === 0
        ? {
            mcp: {
              targets: [
                { name: 't1', static: { host: `mcp-${b}.example`, port: 80 } },
                { name: 't2', static: { host: `mcp2-${b}.example`, port: 80, policies: { tls: { sni: 'x' } } } },
              ],
            },
          }
        : b % 3 === 1
          ? { static: { host: `10.0.${b % 250}.${b % 200}`, port: 8080 } }
          : { ai: { provider: { openai: { model: 'm' } } } };
    put('GwBackend', {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwBackend',
      metadata: { name: `b-${b}`, namespace: ns(b) },
      spec,
    });
  }
  const rulePolicies: string[] = [];
  let policies = 0;
  const policy = (namespace: string, name: string, spec: Record<string, unknown>) => {
    put('GwPolicy', {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwPolicy',
      metadata: { name, namespace, creationTimestamp: `2026-01-01T00:00:${String(policies % 60).padStart(2, '0')}Z` },
      spec,
    });
    policies++;
  };
  for (let g = 0; g < gateways; g++) {
    const n = ns(g);
    put('Gateway', {
      kind: 'Gateway',
      metadata: { name: `gw-${g}`, namespace: n },
      spec: {
        gatewayClassName: 'gw',
        listeners: [
          { name: 'http', port: 8080, protocol: 'HTTP' },
          { name: 'alt', port: 8081, protocol: 'HTTP', hostname: `*.g${g}.example` },
        ],
      },
    });
    policy(n, `gw-${g}`, {
      targetRefs: [{ group: GW, kind: 'Gateway', name: `gw-${g}` }],
      traffic: { cors: { allowOrigins: ['*'] } },
      frontend: { tcp: { maxConnections: 1000 } },
    });
    policy(n, `gw-${g}-http`, {
      targetRefs: [{ group: GW, kind: 'Gateway', name: `gw-${g}`, sectionName: 'http' }],
      traffic: { authorization: { policy: { matchExpressions: ['true'] } } },
    });
    policy(n, `gw-${g}-alt`, {
      targetRefs: [{ group: GW, kind: 'Gateway', name: `gw-${g}`, sectionName: 'alt' }],
      backend: { http: { requestTimeout: '30s' } },
    });
    for (let r = 0; r < routesPerGateway; r++) {
      const name = `r-${g}-${r}`;
      const rules = Array.from({ length: rulesPerRoute }, (_, k) => ({
        name: `rule-${k}`,
        matches: [{ path: { type: 'PathPrefix', value: `/r${r}/k${k}` } }],
        backendRefs: [
          {
            group: 'gw.dev',
            kind: 'GwBackend',
            name: `b-${(g * 10 + r * rulesPerRoute + k) % backends}`,
            namespace: undefined,
          },
        ],
      }));
      // Backends live in the gateway's namespace here, so no ReferenceGrants are needed.
      for (const rule of rules)
        (rule.backendRefs[0] as { name: string }).name =
          `b-${10 * Math.floor(((g * 10 + r * rulesPerRoute) % backends) / 10) + (g % 10)}`;
      put('HTTPRoute', {
        kind: 'HTTPRoute',
        metadata: { name, namespace: n, labels: { team: `t${r % 5}` } },
        spec: { parentRefs: [{ name: `gw-${g}` }], hostnames: [`api.g${g}.example`], rules },
      });
      if (r < 13)
        policy(n, `${name}`, {
          targetRefs: [{ group: GW, kind: 'HTTPRoute', name }],
          traffic: { cors: { allowOrigins: [`https://${name}.example`] } },
        });
      for (let k = 0; k < rulesPerRoute - 1; k++) {
        policy(n, `${name}-rule-${k}`, {
          targetRefs: [{ group: GW, kind: 'HTTPRoute', name, sectionName: `rule-${k}` }],
          traffic: { authorization: { policy: { matchExpressions: [`request.path.startsWith('/r${r}')`] } } },
          backend: { tcp: { connectTimeout: '2s' } },
        });
        rulePolicies.push(`${n}/${name}-rule-${k}`);
      }
    }
  }
  for (let b = 0; policies < 10000 * scale; b++) {
    policy(ns(b), `backend-${b}`, {
      targetRefs: [{ group: 'gw.dev', kind: 'GwBackend', name: `b-${b % backends}` }],
      backend: { tls: { sni: `b${b}.internal` } },
    });
  }
  return { store, rulePolicies, counts };
}
