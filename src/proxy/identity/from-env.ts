// Which workload identity the proxy runs with, from the environment the deployer renders
// (src/deployer/pod-template.ts): SPIFFE_ENDPOINT_SOCKET (GwParameters `spiffe`) starts a Workload API
// client; GW_ISTIO_ENABLED (GwParameters `istio`) starts the Istio CA client. Both set: SPIFFE wins and
// the Istio settings are reported as unused, since one process serves one identity. Each client is imported
// only when asked for (the Istio CA client brings node-forge, the Workload API client gRPC): a proxy with no
// workload identity loads neither.
import type { Logger } from 'pino';
import type { WorkloadIdentity } from './workload-identity.js';

export interface IdentityProvider {
  identity: WorkloadIdentity;
  close(): void;
}

/** The provider the environment asks for, started; undefined when it asks for none. Throws on bad settings. */
export async function identityFromEnv(env: NodeJS.ProcessEnv, log: Logger): Promise<IdentityProvider | undefined> {
  const socket = env.SPIFFE_ENDPOINT_SOCKET;
  const istio = env.GW_ISTIO_ENABLED === 'true';
  if (socket) {
    if (istio) log.warn('SPIFFE_ENDPOINT_SOCKET and GW_ISTIO_ENABLED are both set: the SPIFFE identity is used');
    const { WorkloadApiClient } = await import('./workload-api.js');
    return new WorkloadApiClient({ socket, log: log.child({ component: 'spiffe' }) }).start();
  }
  if (!istio) return undefined;
  const { IstioCaClient, istioSettingsFromEnv } = await import('./istio-ca.js');
  return new IstioCaClient({ ...istioSettingsFromEnv(env), log: log.child({ component: 'istio-ca' }) }).start();
}
