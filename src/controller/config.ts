// The controller's configuration, as `gw controller` parses it from flags and GW_* variables
// (src/cli/controller.ts); the controller reads it from here, so nothing in src/controller imports the CLI.
import type { LevelWithSilent } from 'pino';
import type { LogFormat } from '../log.js';
import type { TranslateOptions } from '../translate/objects/context.js';

export interface ControllerConfig {
  kubeconfig?: string;
  manifests?: string;
  statusDir?: string;
  controllerName: string;
  gatewayClassName: string;
  gatewayClassParametersRefs: Record<string, { name: string; namespace: string }>;
  discoveryNamespaceSelectors: Record<string, unknown>[];
  gatewayNamespaces: string[];
  xdsMode: 'plaintext' | 'tls' | 'either';
  /** Local mode with tls/either: the CA (`ca.json`, mode 0600) and its bundle for proxies (`ca.crt`) live here. */
  xdsCaDir?: string;
  xdsPort: number;
  healthPort: number;
  metricsPort: number;
  enableModels: boolean;
  enableXbackend: boolean;
  enableInferenceExtension: boolean;
  logLevel: LevelWithSilent;
  logFormat: LogFormat;
  leaderElect?: boolean;
  leaderElectionNamespace?: string;
  proxyImage?: string;
  /** The controller's Service (proxies dial `<name>.<namespace>.svc`; the xDS certificate names it). */
  serviceName?: string;
  serviceNamespace?: string;
  /** Prefix of the objects this controller owns outside any Gateway: CA Secret and ConfigMaps, Lease. */
  releaseName?: string;
  /** OTLP/HTTP traces endpoint: translation passes, snapshot publishes and proxy ACKs are traced there. */
  otlpTracesUrl?: string;
  /**
   * Chart `istio.*` defaults for gateways whose GwParameters set `istio.enabled` (docs/chart.md): the CA address
   * (`--istio-ca-address`, or istiod's Service from `--istio-namespace` / `--istio-revision`) and the cluster id.
   */
  istio: MeshDefaults;
  /** Local mode only: load, translate, write statuses once and exit (for CI and scripts). */
  once: boolean;
  /** The fleet web UI (`--admin-address`, `--admin-token-file`); `optional`: the built-in default, skipped when taken. */
  admin?: { address: string; tokenFile?: string; optional?: boolean };
}

/** What the deployer fills in for a gateway whose GwParameters turn istio on and leave these unset. */
export interface MeshDefaults {
  caAddress?: string;
  clusterId?: string;
  /**
   * `--istio-auto-enabled` (chart istio.autoEnabled): the built-in GatewayClass, whose Gateways have istio on
   * unless their GwParameters (class or gateway level) set istio.enabled themselves.
   */
  autoEnabledClass?: string;
}

/** The translator options the controller's configuration decides. */
export function translateOptionsOf(cfg: ControllerConfig): Omit<TranslateOptions, 'now'> {
  return {
    controllerName: cfg.controllerName,
    discoveryNamespaceSelectors: cfg.discoveryNamespaceSelectors,
    enableModels: cfg.enableModels,
    enableInferenceExtension: cfg.enableInferenceExtension,
    ...(cfg.istio.autoEnabledClass ? { istioAutoEnabledClass: cfg.istio.autoEnabledClass } : {}),
  };
}

/** Names of the objects a release's controller owns per namespace; `gw` gives the historical names. */
export interface OwnedNames {
  /** Secret (controller namespace) holding the xDS CA, and ConfigMap (each Gateway namespace) with its bundle. */
  xdsCa: string;
  /** Lease of leader election (controller namespace). */
  lease: string;
}

export function ownedNames(releaseName = 'gw'): OwnedNames {
  return { xdsCa: `${releaseName}-xds-ca`, lease: `${releaseName}-controller` };
}
