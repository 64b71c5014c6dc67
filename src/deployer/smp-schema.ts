// Patch strategies and merge keys of the object kinds the deployer renders, taken from the
// `patchStrategy` / `patchMergeKey` struct tags of k8s.io/api (core/v1, apps/v1, policy/v1,
// autoscaling/v2). Only fields that carry a tag (and the structs leading to them) are listed:
// every other field has no strategy, so its lists are replaced and its maps merged, which is
// exactly what the Go structs say for an untagged field.

export interface SmpField {
  /** `merge`: lists merged by `mergeKey` (or as a set for primitives); `replace`: map replaced whole. */
  strategy?: 'merge' | 'replace';
  /** The field also carries `retainKeys` (only used when creating patches; applying honours `$retainKeys` anywhere). */
  retainKeys?: boolean;
  mergeKey?: string;
  /** Schema of the field's value (a struct) or, for a list, of its items. */
  type?: SmpType;
}

export interface SmpType {
  fields: Readonly<Record<string, SmpField>>;
}

/** A struct about which nothing is known: all its fields are untagged. */
export const untyped: SmpType = { fields: {} };

const objectMeta: SmpType = {
  fields: {
    finalizers: { strategy: 'merge' },
    ownerReferences: { strategy: 'merge', mergeKey: 'uid' },
  },
};

const container: SmpType = {
  fields: {
    ports: { strategy: 'merge', mergeKey: 'containerPort' },
    env: { strategy: 'merge', mergeKey: 'name' },
    volumeMounts: { strategy: 'merge', mergeKey: 'mountPath' },
    volumeDevices: { strategy: 'merge', mergeKey: 'devicePath' },
  },
};

const podSpec: SmpType = {
  fields: {
    volumes: { strategy: 'merge', retainKeys: true, mergeKey: 'name' },
    initContainers: { strategy: 'merge', mergeKey: 'name', type: container },
    containers: { strategy: 'merge', mergeKey: 'name', type: container },
    ephemeralContainers: { strategy: 'merge', mergeKey: 'name', type: container },
    imagePullSecrets: { strategy: 'merge', mergeKey: 'name' },
    hostAliases: { strategy: 'merge', mergeKey: 'ip' },
    topologySpreadConstraints: { strategy: 'merge', mergeKey: 'topologyKey' },
    resourceClaims: { strategy: 'merge', retainKeys: true, mergeKey: 'name' },
    schedulingGates: { strategy: 'merge', mergeKey: 'name' },
  },
};

const podTemplateSpec: SmpType = {
  fields: { metadata: { type: objectMeta }, spec: { type: podSpec } },
};

const conditionsStatus: SmpType = {
  fields: { conditions: { strategy: 'merge', mergeKey: 'type' } },
};

function topLevel(spec: SmpType, extra: Record<string, SmpField> = {}): SmpType {
  return {
    fields: { metadata: { type: objectMeta }, spec: { type: spec }, status: { type: conditionsStatus }, ...extra },
  };
}

const schemas: Readonly<Record<string, SmpType>> = {
  'apps/v1/Deployment': topLevel({
    fields: { template: { type: podTemplateSpec }, strategy: { retainKeys: true } },
  }),
  'apps/v1/DaemonSet': topLevel({ fields: { template: { type: podTemplateSpec } } }),
  'v1/Service': topLevel({ fields: { ports: { strategy: 'merge', mergeKey: 'port' } } }),
  'v1/ServiceAccount': {
    fields: { metadata: { type: objectMeta }, secrets: { strategy: 'merge', mergeKey: 'name' } },
  },
  'policy/v1/PodDisruptionBudget': topLevel({ fields: { selector: { strategy: 'replace' } } }),
  'autoscaling/v2/HorizontalPodAutoscaler': topLevel(untyped),
  'v1/ConfigMap': { fields: { metadata: { type: objectMeta } } },
  'v1/Secret': { fields: { metadata: { type: objectMeta } } },
};

/** The patch schema of `apiVersion`/`kind`, or undefined for a kind the deployer does not render. */
export function smpSchemaFor(apiVersion: string, kind: string): SmpType | undefined {
  return schemas[`${apiVersion}/${kind}`];
}

/** Kinds with a schema, as `apiVersion/kind`. */
export const smpKinds: readonly string[] = Object.keys(schemas);
