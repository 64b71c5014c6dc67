// Coverage of GwParameters: the deployer reads almost all of it; what nothing reads is refused.
import { controlPlane, type CoverageTable } from './types.js';

const deployer = controlPlane('deployer (proxy workload)');

export const gwParametersCoverage: CoverageTable = {
  'spec.workload.*': deployer,
  'spec.deployment.*': deployer,
  'spec.daemonSet.*': deployer,
  'spec.service.*': deployer,
  'spec.serviceAccount.*': deployer,
  'spec.horizontalPodAutoscaler.*': deployer,
  'spec.podDisruptionBudget.*': deployer,
  'spec.image.*': deployer,
  'spec.env[].*': deployer,
  'spec.resources.*': deployer,
  'spec.logging.*': deployer,
  'spec.istio.*': controlPlane(
    'deployer → GW_ISTIO_ENABLED, CA_ADDR, TRUST_DOMAIN, istio-ca token and root mounts; src/proxy/identity/istio-ca.ts requests the mesh certificate (network is not read yet)',
  ),
  'spec.spiffe.*': controlPlane(
    'deployer → SPIFFE_ENDPOINT_SOCKET and the CSI socket mount; src/proxy/identity/workload-api.ts fetches the SVID and bundles',
  ),
  'spec.rawConfig.logging.*': controlPlane('deployer: merged under spec.logging into the proxy log settings'),
  'spec.rawConfig.shutdown.*': controlPlane('deployer: merged under spec.shutdown into the bootstrap file'),
  'spec.rawConfig.limits.*': controlPlane(
    'deployer → bootstrap file limits, read by gw proxy at start-up like its limit flags (flags and environment win)',
  ),
  'spec.shutdown.*': controlPlane(
    'deployer: the proxy bootstrap file (config.json shutdown) and terminationGracePeriodSeconds; the proxy drains by it on SIGTERM',
  ),
  'spec.modelCatalog.*': controlPlane(
    'deployer: each ConfigMap key mounted and listed in the bootstrap file (modelCatalog.files); gw proxy reads, checks and reloads them for /v1/models, gw_llm_cost_usd_total and CEL llm.model',
  ),
  'spec.ui.*': controlPlane(
    'deployer → bootstrap file admin.address; gw proxy serves the web UI and its read-only API there (src/proxy/admin)',
  ),
  'spec.ui.tokenSecret.*': {
    ...controlPlane(
      'deployer: the Secret key mounted at /var/run/secrets/gw/ui-token; gw proxy asks for it as the bearer token of the admin address (src/proxy/admin)',
    ),
    security: true,
  },
};
