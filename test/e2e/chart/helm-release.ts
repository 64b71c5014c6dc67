// helm against the run's API server, and reads of what a release put there; shared by the chart e2e tests.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chartDir, parseManifest } from '../../chart/helm-run.js';
import type { K8sObject } from '../../chart/helm-run.js';
import { kubeTools } from '../../support/kube-tools.js';
import { kubectl } from '../support/kube.js';
import type { CommandResult } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';

const helmHome = join(repoRoot, '.cache', 'e2e', 'helm');

/** Runs helm 4 against the API server of `kubeconfig`; helm's own state stays under .cache, never in $HOME. */
export function helm(kubeconfig: string, args: string[]): Promise<CommandResult> {
  const env = {
    ...process.env,
    KUBECONFIG: kubeconfig,
    HELM_CACHE_HOME: join(helmHome, 'cache'),
    HELM_CONFIG_HOME: join(helmHome, 'config'),
    HELM_DATA_HOME: join(helmHome, 'data'),
  };
  return new Promise((resolve) => {
    execFile(kubeTools().helm, args, { env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The chart's crds/*.yaml (what helm installs before the templates when they are absent). */
export function chartCrdFiles(): string[] {
  const dir = join(chartDir, 'crds');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  if (files.length === 0) throw new Error(`${dir} holds no CRDs; run \`make crds\``);
  return files.sort().map((f) => join(dir, f));
}

export interface ReleaseSpec {
  name: string;
  namespace: string;
  /** --set-json key=JSON pairs: typed values without helm's --set string guessing. */
  values?: Record<string, unknown>;
  /** --skip-crds: for clusters whose CRDs another tool manages (helm 4 would re-apply crds/ and conflict). */
  skipCrds?: boolean;
}

function valueArgs(values: Record<string, unknown> = {}): string[] {
  return Object.entries(values).flatMap(([key, value]) => ['--set-json', `${key}=${JSON.stringify(value)}`]);
}

/**
 * `helm install` of charts/gw without waiting for readiness: there is no kubelet, so the controller's
 * pods never run. helm 4 spells that `--wait=hookOnly` (its default; `--wait=false` is deprecated).
 */
export async function helmInstall(kubeconfig: string, release: ReleaseSpec): Promise<CommandResult> {
  return helm(kubeconfig, [
    'install',
    release.name,
    chartDir,
    '--namespace',
    release.namespace,
    '--wait=hookOnly',
    ...(release.skipCrds ? ['--skip-crds'] : []),
    ...valueArgs(release.values),
  ]);
}

/** Like helmInstall, but throws with helm's output when the install fails (for beforeAll). */
export async function mustInstall(kubeconfig: string, release: ReleaseSpec): Promise<void> {
  const res = await helmInstall(kubeconfig, release);
  if (res.code !== 0)
    throw new Error(`helm install ${release.name} -n ${release.namespace} failed (exit ${res.code}):\n${res.stderr}`);
}

/** The objects helm created for a release (`helm get manifest`). */
export async function releaseObjects(kubeconfig: string, name: string, namespace: string): Promise<K8sObject[]> {
  const res = await helm(kubeconfig, ['get', 'manifest', name, '--namespace', namespace]);
  if (res.code !== 0) throw new Error(`helm get manifest ${name} failed: ${res.stderr}`);
  return parseManifest(res.stdout);
}

/** `kubectl get -o json` of one object; undefined when it does not exist, throws on any other error. */
export async function getObject(
  kubeconfig: string,
  resource: string,
  name: string,
  namespace?: string,
): Promise<K8sObject | undefined> {
  const args = ['get', resource, name, '-o', 'json', '--show-managed-fields', ...(namespace ? ['-n', namespace] : [])];
  const res = await kubectl(kubeconfig, args);
  if (res.code === 0) return JSON.parse(res.stdout) as K8sObject;
  if (/NotFound/.test(res.stderr)) return undefined;
  throw new Error(`kubectl get ${resource} ${name}: ${res.stderr}`);
}

export async function mustGet(
  kubeconfig: string,
  resource: string,
  name: string,
  namespace?: string,
): Promise<K8sObject> {
  const obj = await getObject(kubeconfig, resource, name, namespace);
  if (!obj) throw new Error(`${resource} ${namespace ? `${namespace}/` : ''}${name} does not exist`);
  return obj;
}

/** Names of the objects of a kind in a namespace (or cluster-wide with namespace undefined). */
export async function listNames(kubeconfig: string, resource: string, namespace?: string): Promise<string[]> {
  const args = ['get', resource, '-o', 'jsonpath={.items[*].metadata.name}', ...(namespace ? ['-n', namespace] : [])];
  const res = await kubectl(kubeconfig, args);
  if (res.code !== 0) throw new Error(`kubectl get ${resource}: ${res.stderr}`);
  return res.stdout.split(' ').filter(Boolean);
}

/** The value following `flag` in a container's args (flags and values are separate items). */
export function flagValue(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

interface Container {
  name: string;
  args?: string[];
  image?: string;
  ports?: { name?: string; containerPort: number }[];
}

export interface DeploymentView {
  serviceAccountName?: string;
  containers: Container[];
}

/** The pod template's parts the tests read. */
export function deploymentView(obj: K8sObject): DeploymentView {
  const podSpec = (
    obj as { spec?: { template?: { spec?: { serviceAccountName?: string; containers?: Container[] } } } }
  ).spec?.template?.spec;
  return { serviceAccountName: podSpec?.serviceAccountName, containers: podSpec?.containers ?? [] };
}

export function controllerArgs(obj: K8sObject): string[] {
  const container =
    deploymentView(obj).containers.find((c) => c.name === 'controller') ?? deploymentView(obj).containers[0];
  if (!container?.args)
    throw new Error(`Deployment ${obj.metadata.namespace}/${obj.metadata.name} has no controller container args`);
  return container.args;
}
