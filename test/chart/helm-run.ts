// Runs the real helm 4 binary against charts/gw; every chart test goes through here.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kubeTools } from '../support/kube-tools.js';

export const repoRoot = resolve(dirname(new URL(import.meta.url).pathname), '../..');
export const chartDir = join(repoRoot, 'charts', 'gw');
export const testdataDir = join(repoRoot, 'test', 'chart', 'testdata');
export const releaseName = 'gw';
export const releaseNamespace = 'gw-system';

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function helm(args: string[]): HelmResult {
  const result = spawnSync(kubeTools().helm, args, {
    encoding: 'utf8',
    env: { ...process.env, HELM_CACHE_HOME: join(repoRoot, '.cache', 'helm') },
  });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** `helm template` of the chart (or a copy of it) with the given values files, in a fixed release and namespace. */
export function helmTemplate(valuesFiles: string[], chart = chartDir): HelmResult {
  return helm([
    'template',
    releaseName,
    chart,
    '--namespace',
    releaseNamespace,
    ...valuesFiles.flatMap((f) => ['--values', f]),
  ]);
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** The objects of a multi-document manifest, skipping empty documents; throws on YAML errors. */
export function parseManifest(text: string): K8sObject[] {
  return parseAllDocuments(text, { uniqueKeys: true }).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [value as K8sObject];
  });
}

const rendered = new Map<string, string>();

/** Renders a testdata case (once per test file) and returns fresh copies of its objects; throws if helm fails. */
export function renderCase(caseName: string): K8sObject[] {
  let manifest = rendered.get(caseName);
  if (manifest === undefined) {
    const result = helmTemplate([join(testdataDir, `${caseName}.values.yaml`)]);
    if (result.status !== 0) throw new Error(`helm template failed for ${caseName}: ${result.stderr}`);
    manifest = result.stdout;
    rendered.set(caseName, manifest);
  }
  return parseManifest(manifest);
}

export function findObject(objects: K8sObject[], kind: string, name?: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!found) throw new Error(`no ${kind}${name ? ` ${name}` : ''} rendered`);
  return found;
}

/** Names of the golden cases: testdata/<case>.values.yaml. */
export function valuesCases(): string[] {
  return readdirSync(testdataDir)
    .filter((f) => f.endsWith('.values.yaml'))
    .map((f) => f.slice(0, -'.values.yaml'.length))
    .sort();
}
