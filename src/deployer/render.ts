// Renders the proxy workload of one Gateway of our class from its resolved GwParameters:
// ServiceAccount, proxy ConfigMap, Deployment or DaemonSet, Service, and PodDisruptionBudget /
// HorizontalPodAutoscaler when their overlays are present. Pure: the apply side does the I/O.
import type { Problem } from '../problem.js';
import type { JsonObject } from './json.js';
import { isObject, sortKeys } from './json.js';
import type { GatewayInput } from './naming.js';
import { objectMeta, selectorLabels, sha256, workloadName } from './naming.js';
import { applyOverlays } from './overlay.js';
import type { ParametersInput, ResolvedParameters } from './parameters.js';
import { resolveParameters } from './parameters.js';
import type { ImageDefaults } from './pod-template.js';
import { SESSION_KEY_SECRET_KEY, podTemplate } from './pod-template.js';
import { CONFIG_KEY, METRICS_PORT, READINESS_PORT, buildProxyConfig } from './proxy-config.js';

export type { GatewayInput } from './naming.js';
export type { ParametersInput } from './parameters.js';

export interface DeployerOptions {
  /** The controller's Service, which proxies dial for xDS. */
  controllerService: { name: string; namespace: string };
  /** Default 9978. */
  xdsPort?: number;
  /** `plaintext` proxies dial without TLS; `tls` and `either` mount the xDS CA bundle. Default `tls`. */
  xdsMode?: 'plaintext' | 'tls' | 'either';
  /** ConfigMap in the gateway's namespace holding the xDS CA bundle (`ca.crt`). Default `gw-xds-ca`. */
  xdsCaConfigMap?: string;
  /** The proxy image when parameters do not say (from `--proxy-image`). */
  proxyImage: ImageDefaults;
  /**
   * The chart's istio defaults (`--istio-*`), for gateways whose parameters turn istio on and leave them unset;
   * `autoEnabledClass` (`--istio-auto-enabled`): that class's gateways have istio on unless their parameters set
   * istio.enabled.
   */
  istio?: { caAddress?: string; clusterId?: string; autoEnabledClass?: string };
}

export interface RenderInput {
  gateway: GatewayInput;
  classParameters?: ParametersInput;
  gatewayParameters?: ParametersInput;
  /** SHA-256 of the existing session-key Secret's key; absent until the Secret exists. */
  sessionKeyChecksum?: string;
  options: DeployerOptions;
}

export interface KubeObject extends JsonObject {
  apiVersion: string;
  kind: string;
  metadata: JsonObject;
}

export interface RenderResult {
  /** Empty whenever there are problems, so nothing is half-applied. */
  objects: KubeObject[];
  problems: Problem[];
}

/** Objects the deployer renders carry this label; the apply side prunes by it. */
export { GATEWAY_LABEL } from './naming.js';

export function sessionKeySecretName(gateway: GatewayInput): string {
  return workloadName(gateway, '-session-key');
}

/**
 * The session-key Secret the apply side creates when absent, from 32 random bytes it passes in. The
 * value is the key's base64 text (so `data` holds base64 of that text): it reaches the proxy as the
 * SESSION_KEY environment variable, which cannot carry raw bytes.
 */
export function sessionKeySecret(gateway: GatewayInput, key: Uint8Array): KubeObject {
  const text = Buffer.from(key).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: objectMeta(gateway, sessionKeySecretName(gateway)),
    type: 'Opaque',
    data: { [SESSION_KEY_SECRET_KEY]: Buffer.from(text).toString('base64') },
  };
}

const PORT_NAME = /^(?=.*[a-z])[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$/;

function listenerPorts(gateway: GatewayInput, problems: Problem[]): { container: JsonObject[]; service: JsonObject[] } {
  const container: JsonObject[] = [];
  const service: JsonObject[] = [];
  const seen = new Set<number>();
  gateway.spec.listeners.forEach((l, i) => {
    if (l.port === METRICS_PORT || l.port === READINESS_PORT) {
      problems.push({
        source: 'cluster',
        object: `Gateway ${gateway.metadata.namespace}/${gateway.metadata.name}`,
        path: `spec.listeners[${i}].port`,
        message: `must not be ${l.port}, which the proxy uses for ${l.port === METRICS_PORT ? 'metrics' : 'readiness'}`,
      });
      return;
    }
    if (seen.has(l.port)) return;
    seen.add(l.port);
    const name = PORT_NAME.test(l.name) && !l.name.includes('--') ? l.name : `port-${l.port}`;
    const protocol = l.protocol === 'UDP' ? 'UDP' : 'TCP';
    container.push({ name, containerPort: l.port, protocol });
    service.push({ name, port: l.port, targetPort: l.port, protocol });
  });
  return { container, service };
}

/**
 * The chart's istio defaults under the parameters' own values; a gateway without istio gets none of them.
 * Under `--istio-auto-enabled` a gateway of the built-in class whose parameters leave istio.enabled unset has it
 * on, unless they set `spiffe` (an identity of its own: the translator counts that one, gateway-identity.ts).
 */
function withDefaults(
  resolved: ResolvedParameters,
  gateway: GatewayInput,
  options: DeployerOptions,
): ResolvedParameters {
  const istio = resolved.typed.istio;
  if (!options.istio) return resolved;
  const { autoEnabledClass, ...defaults } = options.istio;
  const auto =
    autoEnabledClass !== undefined && gateway.spec.gatewayClassName === autoEnabledClass && !resolved.typed.spiffe;
  const enabled = istio?.enabled ?? auto;
  if (!enabled) return resolved;
  return { ...resolved, typed: { ...resolved.typed, istio: { ...defaults, ...istio, enabled: true } } };
}

export function renderGatewayWorkload(input: RenderInput): RenderResult {
  const { gateway, options } = input;
  const problems: Problem[] = [];
  const resolved = withDefaults(resolveParameters(input.classParameters, input.gatewayParameters), gateway, options);
  const { typed, overlays } = resolved;
  const name = workloadName(gateway);
  const ns = gateway.metadata.namespace;
  const xdsTls = (options.xdsMode ?? 'tls') !== 'plaintext';
  const xdsAddress = `${options.controllerService.name}.${options.controllerService.namespace}.svc:${options.xdsPort ?? 9978}`;
  const kind = typed.workload?.kind ?? 'Deployment';
  const ports = listenerPorts(gateway, problems);

  const config = buildProxyConfig(typed, { gateway, xdsAddress, xdsTls });
  const configText = `${JSON.stringify(config, null, 2)}\n`;
  const configMapName = workloadName(gateway, '-proxy');
  const configMap: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: objectMeta(gateway, configMapName),
    data: { [CONFIG_KEY]: configText },
  };

  const serviceAccount = applyOverlays(
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: objectMeta(gateway, name) },
    overlays.serviceAccount,
    problems,
  );

  const template = podTemplate({
    gateway,
    typed,
    config,
    configMapName,
    configChecksum: sha256(configText),
    serviceAccountName: name,
    sessionKeySecretName: sessionKeySecretName(gateway),
    sessionKeyChecksum: input.sessionKeyChecksum,
    xdsAddress,
    xdsTls,
    xdsCaConfigMap: options.xdsCaConfigMap ?? 'gw-xds-ca',
    image: options.proxyImage,
    containerPorts: ports.container,
  });
  const workloadSpec: JsonObject = { selector: { matchLabels: selectorLabels(gateway) }, template };
  const workload = applyOverlays(
    { apiVersion: 'apps/v1', kind, metadata: objectMeta(gateway, name), spec: workloadSpec },
    kind === 'Deployment' ? overlays.deployment : overlays.daemonSet,
    problems,
  );

  const service = applyOverlays(
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: objectMeta(gateway, name),
      spec: { type: 'LoadBalancer', selector: selectorLabels(gateway), ports: ports.service },
    },
    overlays.service,
    problems,
  );

  const objects: JsonObject[] = [serviceAccount, configMap, workload, service];
  const pdb = disruptionBudget(gateway, name, overlays, problems);
  if (pdb) objects.push(pdb);
  const hpa = autoscaler(gateway, name, kind, overlays, problems);
  if (hpa) objects.push(hpa);
  for (const o of objects) (o.metadata as JsonObject).namespace = ns;
  if (problems.length > 0) return { objects: [], problems };
  return { objects: objects.map((o) => sortKeys(o) as KubeObject), problems };
}

type Overlays = ResolvedParameters['overlays'];

/** The PodDisruptionBudget, rendered only when a parameters object overlays one. */
function disruptionBudget(
  gateway: RenderInput['gateway'],
  name: string,
  overlays: Overlays,
  problems: Problem[],
): JsonObject | undefined {
  if (overlays.podDisruptionBudget.length === 0) return undefined;
  const base = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: objectMeta(gateway, name),
    spec: { selector: { matchLabels: selectorLabels(gateway) } },
  };
  return applyOverlays(base, overlays.podDisruptionBudget, problems);
}

/** The HorizontalPodAutoscaler, rendered only when overlaid, for a Deployment, and with `maxReplicas` set. */
function autoscaler(
  gateway: RenderInput['gateway'],
  name: string,
  kind: string,
  overlays: Overlays,
  problems: Problem[],
): JsonObject | undefined {
  const last = overlays.horizontalPodAutoscaler[overlays.horizontalPodAutoscaler.length - 1];
  if (!last) return undefined;
  if (kind !== 'Deployment') {
    problems.push({
      source: 'cluster',
      object: last.object,
      path: last.path,
      message: 'applies only when workload.kind is Deployment, got DaemonSet',
    });
    return undefined;
  }
  const base = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: objectMeta(gateway, name),
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name } },
  };
  const hpa = applyOverlays(base, overlays.horizontalPodAutoscaler, problems);
  const spec = isObject(hpa.spec) ? hpa.spec : {};
  if (typeof spec.maxReplicas !== 'number') {
    problems.push({
      source: 'cluster',
      object: last.object,
      path: `${last.path}.spec.maxReplicas`,
      message: 'is required for a HorizontalPodAutoscaler',
    });
  }
  return hpa;
}
