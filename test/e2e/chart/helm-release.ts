// helm against the run's API server, and reads of what a release put there; shared by the chart e2e tests.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';
import { chartDir, parseManifest } from '../../chart/helm-run.js';
import type { K8sObject } from '../../chart/helm-run.js';
import { kubeTools } from '../../support/kube-tools.js';
import { kubectl } from '../support/kube.js';
import type { CommandResult } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';

const helmHome = join(repoRoot, '.cache', 'e2e', 'helm');

/** Runs helm 4 with the run's kubeconfig; helm's own state stays under .cache, never in $HOME. */
export function helm(args: string[]): Promise<CommandResult> {
  const env = {
    ...process.env,
    KUBECONFIG: inject('kubeconfig'),
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

export interface ReleaseSpec {
  name: string;
  namespace: string;
  /** --set-json key=JSON pairs: typed values without helm's --set string guessing. */
  values?: Record<string, unknown>;
}

function valueArgs(values: Record<string, unknown> = {}): string[] {
  return Object.entries(values).flatMap(([key, value]) => ['--set-json', `${key}=${JSON.stringify(value)}`]);
}

/**
 * `helm install` of charts/gw. `--wait=false`: there is no kubelet, so the controller's pods never run
 * and waiting for readiness could only time out.
 */
export async function helmInstall(release: ReleaseSpec): Promise<CommandResult> {
  return helm(['install', release.name, chartDir, '--namespace', release.namespace, '--wait=false', ...valueArgs(release.values)]);
}

/** Like helmInstall, but throws with helm's output when the install fails (for beforeAll). */
export async function mustInstall(release: ReleaseSpec): Promise<void> {
  const res = await helmInstall(release);
  if (res.code !== 0) throw new Error(`helm install ${release.name} -n ${release.namespace} failed (exit ${res.code}):\n${res.stderr}`);
}

/** The objects helm created for a release (`helm get manifest`). */
export async function releaseObjects(name: string, namespace: string): Promise<K8sObject[]> {
  const res = await helm(['get', 'manifest', name, '--namespace', namespace]);
  if (res.code !== 0) throw new Error(`helm get manifest ${name} failed: ${res.stderr}`);
  return parseManifest(res.stdout);
}

/** `kubectl get -o json` of one object; undefined when it does not exist, throws on any other error. */
export async function getObject(resource: string, name: string, namespace?: string): Promise<K8sObject | undefined> {
  const args = ['get', resource, name, '-o', 'json', '--show-managed-fields', ...(namespace ? ['-n', namespace] : [])];
  const res = await kubectl(inject('kubeconfig'), args);
  if (res.code === 0) return JSON.parse(res.stdout) as K8sObject;
  if (/NotFound/.test(res.stderr)) return undefined;
  throw new Error(`kubectl get ${resource} ${name}: ${res.stderr}`);
}

export async function mustGet(resource: string, name: string, namespace?: string): Promise<K8sObject> {
  const obj = await getObject(resource, name, namespace);
  if (!obj) throw new Error(`${resource} ${namespace ? `${namespace}/` : ''}${name} does not exist`);
  return obj;
}

/** Names of the objects of a kind in a namespace (or cluster-wide with namespace undefined). */
export async function listNames(resource: string, namespace?: string): Promise<string[]> {
  const args = ['get', resource, '-o', 'jsonpath={.items[*].metadata.name}', ...(namespace ? ['-n', namespace] : [])];
  const res = await kubectl(inject('kubeconfig'), args);
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
  const podSpec = (obj as { spec?: { template?: { spec?: { serviceAccountName?: string; containers?: Container[] } } } }).spec?.template?.spec;
  return { serviceAccountName: podSpec?.serviceAccountName, containers: podSpec?.containers ?? [] };
}

export function controllerArgs(obj: K8sObject): string[] {
  const container = deploymentView(obj).containers.find((c) => c.name === 'controller') ?? deploymentView(obj).containers[0];
  if (!container?.args) throw new Error(`Deployment ${obj.metadata.namespace}/${obj.metadata.name} has no controller container args`);
  return container.args;
}
