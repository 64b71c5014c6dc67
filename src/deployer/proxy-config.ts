// The proxy's config file: GwParameters `rawConfig` with the typed settings merged over it
// (typed fields win), rendered into a ConfigMap the proxy reads at startup.
import type { JsonObject } from './json.js';
import { sortKeys } from './json.js';
import type { GatewayInput } from './naming.js';
import { deepMerge } from './parameters.js';
import type { TypedParameters } from './parameters.js';

export const CONFIG_DIR = '/etc/gw';
export const CONFIG_KEY = 'config.json';
export const METRICS_PORT = 15020;
export const READINESS_PORT = 15021;
export const XDS_TOKEN_PATH = '/var/run/secrets/gw/xds-token/token';
export const XDS_CA_PATH = '/var/run/secrets/gw/xds-ca/ca.crt';
export const MODEL_CATALOG_DIR = '/etc/gw/model-catalog';
export const UI_TOKEN_DIR = '/var/run/secrets/gw/ui-token';
export const DEFAULT_SPIFFE_SOCKET = '/spiffe-workload-api/spire-agent.sock';

export interface ProxyConfigContext {
  gateway: GatewayInput;
  xdsAddress: string;
  xdsTls: boolean;
}

export function modelCatalogFiles(typed: TypedParameters): string[] {
  return (typed.modelCatalog?.sources ?? []).map(
    (s, i) => `${MODEL_CATALOG_DIR}/${i}/${s.configMap?.key ?? 'catalog.json'}`,
  );
}

/** GwParameters `ui`: the web UI's address and the mounted token file (docs/ui.md). */
function uiOf(typed: TypedParameters): JsonObject {
  const ui = typed.ui;
  if (!ui) return {};
  return {
    ...(ui.address ? { address: ui.address } : {}),
    ...(ui.tokenSecret ? { tokenFile: `${UI_TOKEN_DIR}/${ui.tokenSecret.key ?? 'token'}` } : {}),
  };
}

export function buildProxyConfig(typed: TypedParameters, ctx: ProxyConfigContext): JsonObject {
  const { gateway } = ctx;
  const config: JsonObject = {
    gateway: `${gateway.metadata.namespace}/${gateway.metadata.name}`,
    xds: {
      address: ctx.xdsAddress,
      tls: ctx.xdsTls,
      tokenFile: XDS_TOKEN_PATH,
      ...(ctx.xdsTls ? { caFile: XDS_CA_PATH } : {}),
    },
    admin: { metricsPort: METRICS_PORT, readinessPort: READINESS_PORT, ...uiOf(typed) },
  };
  if (typed.logging) config.logging = { ...typed.logging };
  if (typed.shutdown) config.shutdown = { ...typed.shutdown };
  const files = modelCatalogFiles(typed);
  if (files.length > 0) config.modelCatalog = { files };
  // istio.network is refused (src/coverage/gw-parameters.ts): not written here either.
  if (typed.istio?.enabled) {
    const { network: _refused, ...istio } = typed.istio;
    config.istio = istio as JsonObject;
  }
  if (typed.spiffe) config.spiffe = { socketPath: typed.spiffe.socketPath ?? DEFAULT_SPIFFE_SOCKET };
  // Defaults go under both, so a rawConfig value is kept where no typed field is set.
  const defaults: JsonObject = { logging: { level: 'info', format: 'text' } };
  return sortKeys(deepMerge(defaults, deepMerge((typed.rawConfig ?? {}) as JsonObject, config))) as JsonObject;
}
