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
  /**
   * Prefix of the objects this controller owns beside the Gateways' workloads (the xDS CA Secret and
   * ConfigMaps `<name>-xds-ca`, the lease `<name>-controller`) and its Service's name: the chart passes its
   * full name, so two releases never share them. Default `gw`.
   */
  releaseName?: string;
  /** The controller Service proxies dial (and its certificate names); default the release name. */
  serviceName?: string;
  istio: Record<string, string | boolean>;
  /** Local mode only: load, translate, write statuses once and exit (for CI and scripts). */
  once: boolean;
}

/** The translator options the controller's configuration decides. */
export function translateOptionsOf(cfg: ControllerConfig): Omit<TranslateOptions, 'now'> {
  return {
    controllerName: cfg.controllerName,
    discoveryNamespaceSelectors: cfg.discoveryNamespaceSelectors,
    enableModels: cfg.enableModels,
  };
}
