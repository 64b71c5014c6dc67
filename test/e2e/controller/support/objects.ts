// The objects the controller e2e tests apply, as a user would write them, and small API helpers.
import {
  CoreV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';

export type Obj = KubernetesObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [k: string]: unknown;
};

export function gatewayClass(name: string, controllerName: string): Obj {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GatewayClass',
    metadata: { name },
    spec: { controllerName },
  };
}

export function gateway(
  ns: string,
  name: string,
  className: string,
  listeners = [{ name: 'http', port: 8080, protocol: 'HTTP' }],
  extraSpec: Record<string, unknown> = {},
): Obj {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: ns },
    spec: { gatewayClassName: className, listeners, ...extraSpec },
  };
}

export function mcpBackend(ns: string, name: string, port: number): Obj {
  return {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwBackend',
    metadata: { name, namespace: ns },
    spec: { mcp: { targets: [{ name: 'local', static: { host: '127.0.0.1', port, path: '/mcp' } }] } },
  };
}

export function mcpRoute(ns: string, name: string, gatewayName: string, backend: string): Obj {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, namespace: ns },
    spec: {
      parentRefs: [{ name: gatewayName }],
      rules: [{ backendRefs: [{ group: 'gw.dev', kind: 'GwBackend', name: backend }] }],
    },
  };
}

export function jwtPolicy(ns: string, name: string, route: string): Obj {
  return {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwPolicy',
    metadata: { name, namespace: ns },
    spec: {
      targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: route }],
      traffic: {
        jwtAuthentication: {
          mode: 'Strict',
          providers: [
            {
              issuer: 'https://idp.example',
              audiences: ['mcp'],
              jwks: { remote: { url: 'https://idp.example/jwks' } },
            },
          ],
        },
      },
    },
  };
}

export function parameters(ns: string, name: string, spec: Record<string, unknown>): Obj {
  return { apiVersion: 'gw.dev/v1alpha1', kind: 'GwParameters', metadata: { name, namespace: ns }, spec };
}

/** Server-side apply as the user `e2e-user`. */
export async function apply(kc: KubeConfig, obj: Obj): Promise<Obj> {
  return (await KubernetesObjectApi.makeApiClient(kc).patch(
    obj,
    undefined,
    undefined,
    'e2e-user',
    true,
    PatchStrategy.ServerSideApply,
  )) as Obj;
}

export async function read(
  kc: KubeConfig,
  apiVersion: string,
  kind: string,
  name: string,
  namespace?: string,
): Promise<Obj> {
  return (await KubernetesObjectApi.makeApiClient(kc).read({
    apiVersion,
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
  })) as Obj;
}

export async function tryRead(
  kc: KubeConfig,
  apiVersion: string,
  kind: string,
  name: string,
  namespace?: string,
): Promise<Obj | undefined> {
  try {
    return await read(kc, apiVersion, kind, name, namespace);
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

export interface Cond {
  type: string;
  status: string;
  reason: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

export function conditionsOf(status: unknown): Cond[] {
  const c = (status as { conditions?: Cond[] } | undefined)?.conditions;
  return Array.isArray(c) ? c : [];
}

/** The condition of `type` when it is True at `generation`, else undefined (for eventually()). */
export function trueAt(conds: Cond[], type: string, generation: number | undefined): Cond | undefined {
  const c = conds.find((x) => x.type === type);
  return c && c.status === 'True' && c.observedGeneration === generation ? c : undefined;
}

/** A token of ServiceAccount `sa` (created when absent) for `audience`, via TokenRequest as a kubelet would mint it. */
export async function serviceAccountToken(
  kc: KubeConfig,
  namespace: string,
  sa: string,
  audience: string,
): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  await core
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name: sa } } })
    .catch((e: { code?: number }) => {
      if (e.code !== 409) throw e;
    });
  const tr = await core.createNamespacedServiceAccountToken({
    name: sa,
    namespace,
    body: { spec: { audiences: [audience], expirationSeconds: 600 } },
  });
  return tr.status!.token;
}
