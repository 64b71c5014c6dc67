// Helpers e2e tests share: clients for the run's API server, kubectl, namespaces, CRD readiness.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApiextensionsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, inject } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubeTools } from '../../support/kube-tools.js';

export function kubeConfigFrom(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** The run's admin KubeConfig (cluster-admin via a system:masters client certificate). */
export function e2eKubeConfig(): KubeConfig {
  return kubeConfigFrom(inject('kubeconfig'));
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl against the given kubeconfig; resolves with the exit code instead of throwing. */
export function kubectl(kubeconfig: string, args: string[], stdin?: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(
      kubeTools().kubectl,
      args,
      { env: { ...process.env, KUBECONFIG: kubeconfig }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

/** `kubectl apply --server-side` of the files, as a user installs CRDs; throws with kubectl's output on failure. */
export async function applyFiles(kubeconfig: string, files: string[]): Promise<void> {
  const res = await kubectl(kubeconfig, [
    'apply',
    '--server-side',
    '--field-manager=gw-e2e',
    ...files.flatMap((f) => ['-f', f]),
  ]);
  if (res.code !== 0) throw new Error(`kubectl apply failed (exit ${res.code}):\n${res.stderr || res.stdout}`);
}

/** metadata.name of every CustomResourceDefinition document in the files. */
export function crdNamesIn(files: string[]): string[] {
  const names: string[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const obj = doc.toJS() as { kind?: string; metadata?: { name?: string } } | null;
      if (obj?.kind === 'CustomResourceDefinition' && obj.metadata?.name) names.push(obj.metadata.name);
    }
  }
  return names;
}

export interface CrdState {
  name: string;
  established: boolean;
  namesAccepted: boolean;
  /** Messages of conditions that are not True, for an assertion message that explains itself. */
  problems: string[];
}

export async function crdState(kc: KubeConfig, name: string): Promise<CrdState> {
  const crd = await kc.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name });
  const conditions = crd.status?.conditions ?? [];
  const isTrue = (type: string) => conditions.some((c) => c.type === type && c.status === 'True');
  const problems = conditions
    .filter((c) => c.status !== 'True')
    .map((c) => `${c.type}: ${c.message ?? c.reason ?? ''}`);
  return { name, established: isTrue('Established'), namesAccepted: isTrue('NamesAccepted'), problems };
}

/** Polls until every CRD is Established; throws naming the ones that are not. */
export async function waitForCrdsEstablished(kc: KubeConfig, names: string[], timeoutMs = 60_000): Promise<CrdState[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(names.map((n) => crdState(kc, n)));
    const pending = states.filter((s) => !s.established);
    if (pending.length === 0) return states;
    if (Date.now() > deadline) {
      const detail = pending.map((s) => `${s.name} (${s.problems.join('; ') || 'no conditions yet'})`).join(', ');
      throw new Error(`CRDs not Established after ${timeoutMs} ms: ${detail}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Gives each test file its own namespace: created in beforeAll, deleted in afterAll. Without a
 * kube-controller-manager the namespace only goes to Terminating, which is enough to keep runs apart.
 */
export function useNamespace(prefix: string): () => string {
  let name = '';
  beforeAll(async () => {
    const candidate = `${prefix}-${randomBytes(3).toString('hex')}`;
    await e2eKubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: candidate } } });
    name = candidate;
  });
  afterAll(async () => {
    if (name) await e2eKubeConfig().makeApiClient(CoreV1Api).deleteNamespace({ name });
  });
  return () => {
    if (!name) throw new Error('useNamespace: the namespace exists only inside tests (after beforeAll)');
    return name;
  };
}
