// What the xDS server needs from Kubernetes: proxies authenticated by TokenReview of their projected
// ServiceAccount token (audience gw-xds), authorised only for the Gateway whose deployer-created
// ServiceAccount they run as; the CA kept in a Secret all replicas share; its bundle published in a
// ConfigMap that proxies mount; NACKed resource names mapped back to the objects they came from.
import { createHash } from 'node:crypto';
import { workloadName } from '../deployer/naming.js';
import { XDS_AUDIENCE } from '../deployer/pod-template.js';
import type { CaBundle, CaStore } from '../xds/ca.js';
import type { ProxyIdentity } from '../xds/server.js';
import type { Logger } from 'pino';
import { backoff, sleep, systemClock } from './clock.js';
import { isStatus, type KubeClient } from './kube-client.js';
import { errText } from './workers.js';

const SA_PREFIX = 'system:serviceaccount:';

interface TokenReview {
  status?: { authenticated?: boolean; user?: { username?: string }; audiences?: string[]; error?: string };
}

/**
 * TokenReview-backed `authenticate`: null for a token the API server does not accept (or one that is
 * not a ServiceAccount's, or not for `audience`); throws when the review itself fails. Verdicts are
 * cached for `ttlMs` by token hash so reconnect storms do not become TokenReview storms.
 */
export function tokenReviewAuthenticator(
  client: KubeClient,
  audience = XDS_AUDIENCE,
  ttlMs = 30_000,
  now: () => number = Date.now,
): (token: string) => Promise<ProxyIdentity | null> {
  const cache = new Map<string, { at: number; identity: ProxyIdentity | null }>();
  return async (token) => {
    const key = createHash('sha256').update(token).digest('hex');
    const hit = cache.get(key);
    if (hit && now() - hit.at < ttlMs) return hit.identity;
    const review = await client.request<TokenReview>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: [audience] } },
      timeoutMs: 10_000,
    });
    const s = review.status ?? {};
    const user = s.user?.username ?? '';
    let identity: ProxyIdentity | null = null;
    if (s.authenticated && user.startsWith(SA_PREFIX) && (s.audiences ?? []).includes(audience)) {
      const [namespace, serviceAccount] = user.slice(SA_PREFIX.length).split(':');
      if (namespace && serviceAccount) identity = { namespace, serviceAccount };
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(key, { at: now(), identity });
    return identity;
  };
}

/** `authorize`: a proxy may read only the Gateway whose workload ServiceAccount it runs as. */
export function authorizeGatewayServiceAccount(identity: ProxyIdentity, gateway: string): boolean {
  const i = gateway.indexOf('/');
  if (i < 0) return false;
  const namespace = gateway.slice(0, i);
  const name = gateway.slice(i + 1);
  const expected = workloadName({
    metadata: { name, namespace, uid: '' },
    spec: { gatewayClassName: '', listeners: [] },
  });
  return identity.namespace === namespace && identity.serviceAccount === expected;
}

/** The xDS CA in a Secret (`ca.crt`, `ca.key`); the first replica to create it wins, the others read it. */
export function secretCaStore(client: KubeClient, namespace: string, name = 'gw-xds-ca'): CaStore {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;
  const get = async (): Promise<CaBundle | undefined> => {
    try {
      const s = await client.request<{ data?: Record<string, string> }>('GET', `${path}/${encodeURIComponent(name)}`);
      const cert = s.data?.['ca.crt'];
      const key = s.data?.['ca.key'];
      if (!cert || !key) throw new Error(`Secret ${namespace}/${name} must hold ca.crt and ca.key`);
      return {
        caCert: Buffer.from(cert, 'base64').toString('utf8'),
        caKey: Buffer.from(key, 'base64').toString('utf8'),
      };
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  };
  return {
    get,
    async put(ca) {
      const body = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'gw-controller' } },
        data: {
          'ca.crt': Buffer.from(ca.caCert).toString('base64'),
          'ca.key': Buffer.from(ca.caKey).toString('base64'),
        },
      };
      try {
        await client.request('POST', path, { body });
        return ca;
      } catch (err) {
        if (!isStatus(err, 409)) throw err;
        const existing = await get();
        if (!existing) throw new Error(`Secret ${namespace}/${name} vanished while two replicas created it`);
        return existing;
      }
    },
  };
}

/**
 * A CaStore whose reads and writes are retried with backoff (200 ms doubling to 5 s) until they
 * succeed or `signal` aborts: a controller started before its API server is reachable waits.
 */
export function retryingCaStore(store: CaStore, log: Logger, signal: AbortSignal): CaStore {
  const retry = async <T>(what: string, op: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await op();
      } catch (err) {
        if (signal.aborted) throw err;
        const delay = backoff(attempt, 200, 5_000);
        log.warn({ err: errText(err), retryInMs: delay }, `cannot ${what} the xDS CA yet; retrying`);
        await sleep(systemClock, delay, signal);
        if (signal.aborted) throw new Error(`stopped while waiting to ${what} the xDS CA`);
      }
    }
  };
  return { get: () => retry('read', () => store.get()), put: (ca) => retry('store', () => store.put(ca)) };
}

/** The ConfigMap (key `ca.crt`) the deployer mounts into proxies of a namespace, applied as gw-controller. */
export async function publishCaBundle(
  client: KubeClient,
  namespace: string,
  pem: string,
  name = 'gw-xds-ca',
): Promise<void> {
  await client.request(
    'PATCH',
    `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${encodeURIComponent(name)}`,
    {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'gw-controller' } },
        data: { 'ca.crt': pem },
      },
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: 'gw-controller', force: true },
    },
  );
}

/**
 * The object a snapshot resource came from, by its name: `route/HTTPRoute/ns/name/rule` → HTTPRoute,
 * `backend/GwBackend/ns/name` → GwBackend, a ListenerSet's listener (`listener/ns/gateway/ListenerSet/
 * ns/name/listener`) → the ListenerSet, other listener and bind names (`ns/gateway/…`) → the Gateway.
 */
export function objectOfResource(resourceName: string, gateway: string): string {
  const [type, ...rest] = resourceName.split('/');
  if ((type === 'route' || type === 'backend' || type === 'model') && rest.length >= 3 && /^[A-Z]/.test(rest[0]!))
    return rest.slice(0, 3).join('/');
  if (type === 'listener' && rest[2] === 'ListenerSet' && rest.length >= 6) return rest.slice(2, 5).join('/');
  return `Gateway/${gateway}`;
}
