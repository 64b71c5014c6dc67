// Coverage of GwParameters: the deployer reads almost all of it; what nothing reads is refused.
import { controlPlane, refused, type CoverageTable } from './types.js';

const RENDER = 'src/deployer/render.ts';
const PARAMETERS = 'src/deployer/parameters.ts';
const POD = 'src/deployer/pod-template.ts';
const BOOTSTRAP = 'src/deployer/proxy-config.ts';
const overlay = controlPlane('deployer (proxy workload): overlays of the rendered objects', [RENDER, PARAMETERS]);

export const gwParametersCoverage: CoverageTable = {
  'spec.workload.*': controlPlane('deployer: Deployment or DaemonSet', [RENDER]),
  'spec.deployment.*': overlay,
  'spec.daemonSet.*': overlay,
  'spec.service.*': overlay,
  'spec.serviceAccount.*': overlay,
  'spec.horizontalPodAutoscaler.*': overlay,
  'spec.podDisruptionBudget.*': overlay,
  'spec.image.*': controlPlane('deployer: the proxy container image', [POD]),
  'spec.env[].*': controlPlane('deployer: the proxy container environment', [POD]),
  'spec.resources.*': controlPlane('deployer: the proxy container resources', [POD]),
  'spec.logging.*': controlPlane('deployer → GW_LOG_LEVEL and the bootstrap log format', [POD, BOOTSTRAP]),
  'spec.istio.*': controlPlane(
    'deployer → GW_ISTIO_ENABLED, CA_ADDR, TRUST_DOMAIN, istio-ca token and root mounts; src/proxy/identity/istio-ca.ts requests the mesh certificate',
    [POD, 'src/proxy/identity/istio-ca.ts'],
  ),
  'spec.istio.network': refused(
    'multi-network routing (east-west gateways) is not implemented: the proxy would not use the network, so it is not rendered',
  ),
  'spec.spiffe.*': controlPlane(
    'deployer → SPIFFE_ENDPOINT_SOCKET and the CSI socket mount; src/proxy/identity/workload-api.ts fetches the SVID and bundles',
    [POD, 'src/proxy/identity/from-env.ts', 'src/translate/objects/gateway-identity.ts'],
  ),
  'spec.rawConfig.logging.*': controlPlane('deployer: merged under spec.logging into the proxy log settings', [
    BOOTSTRAP,
  ]),
  'spec.rawConfig.shutdown.*': controlPlane('deployer: merged under spec.shutdown into the bootstrap file', [
    BOOTSTRAP,
  ]),
  'spec.rawConfig.limits.*': controlPlane(
    'deployer → bootstrap file limits, read by gw proxy at start-up like its limit flags (flags and environment win)',
    ['src/cli/proxy-xds.ts'],
  ),
  'spec.shutdown.*': controlPlane(
    'deployer: the proxy bootstrap file (config.json shutdown) and terminationGracePeriodSeconds; the proxy drains by it on SIGTERM',
    [POD, BOOTSTRAP],
  ),
  'spec.modelCatalog.*': controlPlane(
    'deployer: each ConfigMap key mounted and listed in the bootstrap file (modelCatalog.files); gw proxy reads, checks and reloads them for /v1/models, gw_llm_cost_usd_total and CEL llm.model',
    [POD, BOOTSTRAP],
  ),
  'spec.ui.*': controlPlane(
    'deployer → bootstrap file admin.address; gw proxy serves the web UI and its read-only API there (src/proxy/admin)',
    [POD, BOOTSTRAP],
  ),
  'spec.ui.tokenSecret.*': {
    ...controlPlane(
      'deployer: the Secret key mounted at /var/run/secrets/gw/ui-token; gw proxy asks for it as the bearer token of the admin address (src/proxy/admin)',
      [POD],
    ),
    security: true,
  },
};
