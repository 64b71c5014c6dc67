// Structural checks of rendered objects against the Kubernetes API types, offline.
// Built-in kinds use the OpenAPI-generated models of @kubernetes/client-node (field names and types of
// Kubernetes 1.34); custom kinds use JSON schemas in testdata/custom-kind-schemas.yaml. The e2e suite
// additionally installs the chart into a real API server.
import * as k8s from '@kubernetes/client-node';
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { K8sObject } from './helm-run.js';

interface Attribute {
  baseName: string;
  type: string;
  format: string;
}

const models = k8s as unknown as Record<string, { attributeTypeMap?: Attribute[] } | undefined>;

/** apiVersion/kind → generated model; the kinds the chart renders from the core API groups. */
const builtInKinds: Record<string, { model: string; namespaced: boolean }> = {
  'v1/ConfigMap': { model: 'V1ConfigMap', namespaced: true },
  'v1/Service': { model: 'V1Service', namespaced: true },
  'v1/ServiceAccount': { model: 'V1ServiceAccount', namespaced: true },
  'apps/v1/Deployment': { model: 'V1Deployment', namespaced: true },
  'policy/v1/PodDisruptionBudget': { model: 'V1PodDisruptionBudget', namespaced: true },
  'autoscaling/v2/HorizontalPodAutoscaler': { model: 'V2HorizontalPodAutoscaler', namespaced: true },
  'rbac.authorization.k8s.io/v1/ClusterRole': { model: 'V1ClusterRole', namespaced: false },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { model: 'V1ClusterRoleBinding', namespaced: false },
  'rbac.authorization.k8s.io/v1/Role': { model: 'V1Role', namespaced: true },
  'rbac.authorization.k8s.io/v1/RoleBinding': { model: 'V1RoleBinding', namespaced: true },
};

/** Fields the API server requires; the generated models do not record required-ness. */
const requiredFields: Record<string, string[]> = {
  V1Container: ['name', 'image'],
  V1ContainerPort: ['containerPort'],
  V1DeploymentSpec: ['selector', 'template'],
  V1EnvVar: ['name'],
  V1HTTPGetAction: ['port'],
  V1PodSpec: ['containers'],
  V1PolicyRule: ['verbs'],
  V1RoleRef: ['apiGroup', 'kind', 'name'],
  V1ServicePort: ['port'],
  RbacV1Subject: ['kind', 'name'],
  V1Volume: ['name'],
  V1VolumeMount: ['name', 'mountPath'],
  V1LabelSelectorRequirement: ['key', 'operator'],
  V2HorizontalPodAutoscalerSpec: ['maxReplicas', 'scaleTargetRef'],
  V2CrossVersionObjectReference: ['kind', 'name'],
};

interface CustomKind {
  namespaced: boolean;
  spec: object;
}

const customKinds = (
  parse(readFileSync(join(import.meta.dirname, 'testdata', 'custom-kind-schemas.yaml'), 'utf8')) as {
    kinds: Record<string, CustomKind>;
  }
).kinds;
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const customValidators = Object.fromEntries(
  Object.entries(customKinds).map(([key, kind]) => [key, ajv.compile(kind.spec)]),
);

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelName =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Every problem found in one rendered object, each as `Kind ns/name: path: message`. */
export function checkObject(obj: K8sObject): string[] {
  const problems: string[] = [];
  const id = `${obj.kind ?? '?'} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name ?? '?'}`;
  const report = (path: string, message: string) => problems.push(`${id}: ${path}: ${message}`);
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') report('', 'must have apiVersion and kind');
  if (
    typeof obj.metadata?.name !== 'string' ||
    !dnsSubdomain.test(obj.metadata.name) ||
    obj.metadata.name.length > 253
  ) {
    report('metadata.name', `must be a DNS subdomain, got ${JSON.stringify(obj.metadata?.name)}`);
  }
  for (const [key, value] of Object.entries(obj.metadata?.labels ?? {})) {
    if (!labelName.test(key)) report(`metadata.labels[${key}]`, 'is not a valid label key');
    if (typeof value !== 'string' || value.length > 63 || !labelValue.test(value))
      report(`metadata.labels[${key}]`, `is not a valid label value: ${JSON.stringify(value)}`);
  }
  const key = `${obj.apiVersion}/${obj.kind}`;
  const builtIn = builtInKinds[key];
  const custom = customKinds[key];
  if (!builtIn && !custom) {
    report('', `kind ${key} has no schema in the chart tests; add one`);
    return problems;
  }
  const namespaced = builtIn ? builtIn.namespaced : custom!.namespaced;
  if (namespaced && !obj.metadata.namespace) report('metadata.namespace', 'must be set on a namespaced kind');
  if (!namespaced && obj.metadata.namespace) report('metadata.namespace', 'must not be set on a cluster-scoped kind');
  if (builtIn) {
    checkValue(obj, builtIn.model, '', report);
  } else {
    checkValue(obj.metadata, 'V1ObjectMeta', 'metadata', report);
    const validate = customValidators[key]!;
    if (!validate(obj.spec))
      for (const e of validate.errors ?? [])
        report(`spec${e.instancePath.replaceAll('/', '.')}`, e.message ?? 'is invalid');
    for (const field of Object.keys(obj))
      if (!['apiVersion', 'kind', 'metadata', 'spec'].includes(field)) report(field, 'is not a field of this kind');
  }
  return problems;
}

type Report = (path: string, message: string) => void;

function checkValue(value: unknown, type: string, path: string, report: Report, format = '', quantity = false): void {
  if (value === null || value === undefined) return;
  const array = /^Array<(.+)>$/.exec(type);
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return report(path, `must be a list, got ${typeof value}`);
    value.forEach((item, i) => checkValue(item, array[1]!, `${path}[${i}]`, report, '', quantity));
  } else if (map) {
    if (!isObject(value)) return report(path, 'must be a map');
    for (const [k, v] of Object.entries(value)) checkValue(v, map[1]!, `${path}[${k}]`, report, '', quantity);
  } else if (type === 'string' || type === 'Date') {
    // Resource quantities are strings in the model but the API also accepts plain numbers.
    if (typeof value !== 'string' && !(quantity && typeof value === 'number'))
      report(path, `must be a string, got ${JSON.stringify(value)}`);
  } else if (type === 'number') {
    if (typeof value !== 'number' || (format.startsWith('int') && !Number.isInteger(value)))
      report(path, `must be ${format || 'a number'}, got ${JSON.stringify(value)}`);
  } else if (type === 'boolean') {
    if (typeof value !== 'boolean') report(path, `must be a boolean, got ${JSON.stringify(value)}`);
  } else if (type === 'IntOrString') {
    if (typeof value !== 'string' && !Number.isInteger(value))
      report(path, `must be an integer or a string, got ${JSON.stringify(value)}`);
  } else if (type === 'any' || type === 'object') {
    return;
  } else {
    const attributes = models[type]?.attributeTypeMap;
    if (!attributes) throw new Error(`no Kubernetes model named ${type} (at ${path})`);
    if (!isObject(value)) return report(path, `must be an object (${type})`);
    for (const [field, child] of Object.entries(value)) {
      const attribute = attributes.find((a) => a.baseName === field);
      const childPath = path ? `${path}.${field}` : field;
      if (!attribute) report(childPath, `is not a field of ${type}`);
      else checkValue(child, attribute.type, childPath, report, attribute.format, type === 'V1ResourceRequirements');
    }
    for (const field of requiredFields[type] ?? [])
      if (!(field in value)) report(path ? `${path}.${field}` : field, 'is required');
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
