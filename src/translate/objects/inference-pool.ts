// InferencePool (Gateway API Inference Extension, inference.networking.k8s.io/v1) and the Pods it selects,
// read as written: the CRD is not ours, so only the fields the translator uses are narrowed here.
import { rec } from './read.js';
import type { KubeObject, StoredObject } from './types.js';

export interface InferencePoolView {
  matchLabels: Record<string, string>;
  targetPorts: number[];
  picker?: { group: string; kind: string; name: string; port?: number; failOpen: boolean };
}

/** The pool's selector, target ports and endpoint picker; undefined when the spec lacks a selector or ports. */
export function inferencePoolSpec(pool: StoredObject): InferencePoolView | undefined {
  const spec = rec(pool.obj.spec) ?? {};
  const labels = rec(rec(spec.selector)?.matchLabels);
  const ports = Array.isArray(spec.targetPorts) ? spec.targetPorts : [];
  const targetPorts = ports.map((p) => Number(rec(p)?.number)).filter((n) => Number.isInteger(n) && n > 0 && n < 65536);
  if (!labels || targetPorts.length === 0) return undefined;
  const matchLabels = Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)]));
  const ref = rec(spec.endpointPickerRef);
  const out: InferencePoolView = { matchLabels, targetPorts };
  if (ref && typeof ref.name === 'string' && ref.name !== '') {
    const port = Number(rec(ref.port)?.number);
    out.picker = {
      group: typeof ref.group === 'string' ? ref.group : '',
      kind: typeof ref.kind === 'string' && ref.kind !== '' ? ref.kind : 'Service',
      name: ref.name,
      ...(Number.isInteger(port) && port > 0 ? { port } : {}),
      failOpen: ref.failureMode === 'FailOpen',
    };
  }
  return out;
}

/** The Pod's IP when it is Ready and not terminating; undefined otherwise. */
export function readyPodIp(pod: KubeObject): string | undefined {
  const status = rec(pod.status) ?? {};
  const ip = typeof status.podIP === 'string' ? status.podIP : '';
  if (!ip || (pod.metadata as { deletionTimestamp?: unknown }).deletionTimestamp) return undefined;
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const ready = conditions.some((c) => rec(c)?.type === 'Ready' && rec(c)?.status === 'True');
  return ready ? ip : undefined;
}

/** What of a Pod's status the translation reads, for the fingerprints that otherwise leave status out. */
export function podFingerprintPart(kind: string, obj: { status?: unknown; metadata: object }): { readyIp?: string } {
  return kind === 'Pod' ? { readyIp: readyPodIp(obj as KubeObject) ?? '' } : {};
}
