// The proxy pod template: image, env, ports, probes, volumes for config, xDS identity and CA,
// session key, istio and SPIFFE, model catalogs, resources and shutdown timing.
import type { Json, JsonObject } from './json.js';
import { isObject } from './json.js';
import type { GatewayInput } from './naming.js';
import { objectLabels, selectorLabels } from './naming.js';
import type { TypedParameters } from './parameters.js';
import { mergeEnv } from './parameters.js';
import {
  CONFIG_DIR,
  CONFIG_KEY,
  DEFAULT_SPIFFE_SOCKET,
  MODEL_CATALOG_DIR,
  UI_TOKEN_DIR,
  METRICS_PORT,
  READINESS_PORT,
  XDS_CA_PATH,
  XDS_TOKEN_PATH,
} from './proxy-config.js';

export const XDS_AUDIENCE = 'gw-xds';
export const SESSION_KEY_SECRET_KEY = 'session-key';
export const CONFIG_CHECKSUM_ANNOTATION = 'gw.dev/config-checksum';
export const SESSION_KEY_CHECKSUM_ANNOTATION = 'gw.dev/session-key-checksum';

export interface ImageDefaults {
  registry?: string;
  repository: string;
  tag?: string;
  pullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
}

export interface PodContext {
  gateway: GatewayInput;
  typed: TypedParameters;
  config: JsonObject;
  configMapName: string;
  configChecksum: string;
  serviceAccountName: string;
  sessionKeySecretName: string;
  sessionKeyChecksum?: string;
  xdsAddress: string;
  xdsTls: boolean;
  xdsCaConfigMap: string;
  image: ImageDefaults;
  containerPorts: JsonObject[];
}

/** `registry/repository@digest` or `registry/repository:tag`; a digest wins over a tag. */
export function imageRef(typed: TypedParameters, defaults: ImageDefaults): string {
  const img = typed.image ?? {};
  const fallback = withRegistrySplit(defaults);
  const registry = img.registry ?? fallback.registry;
  const repository = img.repository ?? fallback.repository;
  const base = registry ? `${registry.replace(/\/+$/, '')}/${repository}` : repository;
  if (img.digest) return `${base}@${img.digest}`;
  const tag = img.tag ?? defaults.tag;
  return tag ? `${base}:${tag}` : base;
}

/**
 * Defaults given as one reference (`ghcr.io/gw-dev/proxy`) carry their registry in the repository; split
 * it off, so a GwParameters `image.registry` replaces the registry instead of being prefixed to it.
 * The first path component is a registry when it has a dot or a port, or is `localhost` (Docker's rule).
 */
function withRegistrySplit(d: ImageDefaults): ImageDefaults {
  if (d.registry) return d;
  const slash = d.repository.indexOf('/');
  const first = slash > 0 ? d.repository.slice(0, slash) : '';
  if (!first || !(first.includes('.') || first.includes(':') || first === 'localhost')) return d;
  return { ...d, registry: first, repository: d.repository.slice(slash + 1) };
}

/** Seconds of a Duration such as `1m30s` or `500ms`. */
export function durationSeconds(d: string): number {
  let total = 0;
  for (const m of d.matchAll(/([0-9]+)(ms|h|m|s)/g)) {
    const n = Number(m[1]);
    total += m[2] === 'h' ? n * 3600 : m[2] === 'm' ? n * 60 : m[2] === 's' ? n : n / 1000;
  }
  return total;
}

const fieldRef = (path: string): JsonObject => ({ valueFrom: { fieldRef: { fieldPath: path } } });

function controllerEnv(ctx: PodContext): Array<JsonObject & { name: string }> {
  const { gateway, config } = ctx;
  const logging = isObject(config.logging) ? config.logging : {};
  const env: Array<JsonObject & { name: string }> = [
    { name: 'POD_NAME', ...fieldRef('metadata.name') },
    { name: 'POD_NAMESPACE', ...fieldRef('metadata.namespace') },
    { name: 'GW_GATEWAY', value: `${gateway.metadata.namespace}/${gateway.metadata.name}` },
    { name: 'GW_XDS_ADDRESS', value: ctx.xdsAddress },
    { name: 'GW_CONFIG', value: `${CONFIG_DIR}/${CONFIG_KEY}` },
    { name: 'GW_LOG_LEVEL', value: String(logging.level) },
    { name: 'RUST_LOG', value: String(logging.level) },
    { name: 'GW_LOG_FORMAT', value: String(logging.format) },
    // One worker per CPU of the limit (rounded up; without a limit, the node's allocatable CPUs).
    { name: 'GW_WORKERS', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1' } } },
    {
      name: 'SESSION_KEY',
      valueFrom: { secretKeyRef: { name: ctx.sessionKeySecretName, key: SESSION_KEY_SECRET_KEY } },
    },
  ];
  const { istio, spiffe } = ctx.typed;
  if (istio?.enabled) {
    env.push({ name: 'GW_ISTIO_ENABLED', value: 'true' });
    // The proxy's mesh identity is spiffe://<trust domain>/ns/<POD_NAMESPACE>/sa/<SERVICE_ACCOUNT>.
    env.push({ name: 'SERVICE_ACCOUNT', ...fieldRef('spec.serviceAccountName') });
    if (istio.caAddress) env.push({ name: 'CA_ADDR', value: istio.caAddress });
    if (istio.trustDomain) env.push({ name: 'TRUST_DOMAIN', value: istio.trustDomain });
    if (istio.additionalTrustDomains?.length)
      env.push({ name: 'GW_ISTIO_ADDITIONAL_TRUST_DOMAINS', value: istio.additionalTrustDomains.join(',') });
    if (istio.clusterId) env.push({ name: 'ISTIO_META_CLUSTER_ID', value: istio.clusterId });
    // istio.network is refused (src/coverage/gw-parameters.ts): the proxy does no multi-network routing.
  }
  if (spiffe)
    env.push({ name: 'SPIFFE_ENDPOINT_SOCKET', value: `unix://${spiffe.socketPath ?? DEFAULT_SPIFFE_SOCKET}` });
  return env;
}

function volumesAndMounts(ctx: PodContext): { volumes: JsonObject[]; mounts: JsonObject[] } {
  const dir = (p: string): string => p.slice(0, p.lastIndexOf('/'));
  const file = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
  const volumes: JsonObject[] = [
    { name: 'config', configMap: { name: ctx.configMapName } },
    {
      name: 'xds-token',
      projected: {
        sources: [
          { serviceAccountToken: { audience: XDS_AUDIENCE, expirationSeconds: 3600, path: file(XDS_TOKEN_PATH) } },
        ],
      },
    },
  ];
  const mounts: JsonObject[] = [
    { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
    { name: 'xds-token', mountPath: dir(XDS_TOKEN_PATH), readOnly: true },
  ];
  if (ctx.xdsTls) {
    volumes.push({ name: 'xds-ca', configMap: { name: ctx.xdsCaConfigMap } });
    mounts.push({ name: 'xds-ca', mountPath: dir(XDS_CA_PATH), readOnly: true });
  }
  const { istio, spiffe, modelCatalog, ui } = ctx.typed;
  if (ui?.tokenSecret) {
    const key = ui.tokenSecret.key ?? 'token';
    volumes.push({ name: 'ui-token', secret: { secretName: ui.tokenSecret.name, items: [{ key, path: key }] } });
    mounts.push({ name: 'ui-token', mountPath: UI_TOKEN_DIR, readOnly: true });
  }
  if (istio?.enabled) {
    volumes.push({
      name: 'istio-token',
      projected: {
        sources: [{ serviceAccountToken: { audience: 'istio-ca', expirationSeconds: 43200, path: 'istio-token' } }],
      },
    });
    volumes.push({ name: 'istio-ca-root-cert', configMap: { name: 'istio-ca-root-cert' } });
    mounts.push({ name: 'istio-token', mountPath: '/var/run/secrets/tokens', readOnly: true });
    mounts.push({ name: 'istio-ca-root-cert', mountPath: '/var/run/secrets/istio', readOnly: true });
  }
  if (spiffe) {
    volumes.push({ name: 'spiffe-workload-api', csi: { driver: 'csi.spiffe.io', readOnly: true } });
    mounts.push({
      name: 'spiffe-workload-api',
      mountPath: dir(spiffe.socketPath ?? DEFAULT_SPIFFE_SOCKET),
      readOnly: true,
    });
  }
  (modelCatalog?.sources ?? []).forEach((s, i) => {
    if (!s.configMap) return;
    const key = s.configMap.key ?? 'catalog.json';
    volumes.push({ name: `model-catalog-${i}`, configMap: { name: s.configMap.name, items: [{ key, path: key }] } });
    mounts.push({ name: `model-catalog-${i}`, mountPath: `${MODEL_CATALOG_DIR}/${i}`, readOnly: true });
  });
  return { volumes, mounts };
}

export function podTemplate(ctx: PodContext): JsonObject {
  const { typed } = ctx;
  const userEnv = typed.env ?? [];
  const env = mergeEnv<{ name: string }>(controllerEnv(ctx), userEnv) as unknown as Json[];
  const annotations: JsonObject = { [CONFIG_CHECKSUM_ANNOTATION]: ctx.configChecksum };
  // A SESSION_KEY from parameters replaces the managed Secret, so its checksum must not roll pods.
  if (ctx.sessionKeyChecksum && !userEnv.some((e) => e.name === 'SESSION_KEY')) {
    annotations[SESSION_KEY_CHECKSUM_ANNOTATION] = ctx.sessionKeyChecksum;
  }
  const { volumes, mounts } = volumesAndMounts(ctx);
  const container: JsonObject = {
    name: 'proxy',
    image: imageRef(typed, ctx.image),
    args: ['proxy', '--config', `${CONFIG_DIR}/${CONFIG_KEY}`],
    ports: [
      ...ctx.containerPorts,
      { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' },
      { name: 'readiness', containerPort: READINESS_PORT, protocol: 'TCP' },
    ],
    env,
    readinessProbe: { httpGet: { path: '/healthz/ready', port: READINESS_PORT }, periodSeconds: 10 },
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: mounts,
  };
  const pullPolicy = typed.image?.pullPolicy ?? ctx.image.pullPolicy;
  if (pullPolicy) container.imagePullPolicy = pullPolicy;
  if (typed.resources) container.resources = typed.resources as JsonObject;
  const spec: JsonObject = {
    serviceAccountName: ctx.serviceAccountName,
    securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
    containers: [container],
    volumes,
  };
  // The pod must outlive the proxy's longest drain; 5 s of slack covers process exit.
  const maxDelay = typed.shutdown?.maxDelay;
  if (maxDelay) spec.terminationGracePeriodSeconds = Math.max(30, Math.ceil(durationSeconds(maxDelay)) + 5);
  return {
    metadata: { labels: { ...objectLabels(ctx.gateway), ...selectorLabels(ctx.gateway) }, annotations },
    spec,
  };
}
