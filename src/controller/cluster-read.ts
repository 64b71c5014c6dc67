// One-shot read of every watched kind into a translation store, for commands that answer once
// (`gw explain` against a cluster) and need no informers.
import type { Problem } from '../problem.js';
import { createStore, putObject, type Store } from '../translate/objects/store.js';
import type { Kind, KubeObject } from '../translate/objects/types.js';
import { isStatus, type KubeClient } from './kube-client.js';
import { ALTERNATIVES, WATCHED, resourcePath } from './resources.js';

export interface ClusterRead {
  store: Store;
  problems: Problem[];
  /** Kinds left out, with why (not served by this cluster, or not readable with these credentials). */
  skipped: Array<{ kind: Kind; reason: string }>;
}

export async function readClusterStore(
  client: KubeClient,
  opts: { enableModels: boolean; enableInferenceExtension?: boolean },
): Promise<ClusterRead> {
  const store = createStore();
  const problems: Problem[] = [];
  const skipped: ClusterRead['skipped'] = [];
  for (const kind of Object.keys(WATCHED) as Kind[]) {
    if (kind === 'GwModel' && !opts.enableModels) continue;
    if ((kind === 'InferencePool' || kind === 'Pod') && !opts.enableInferenceExtension) continue;
    let items: KubeObject[] | undefined;
    let reason = '';
    for (const res of [WATCHED[kind], ...(ALTERNATIVES[kind] ?? [])]) {
      try {
        items = (await listWithRetry(client, resourcePath(res))).items ?? [];
        break;
      } catch (err) {
        if (!isStatus(err, 403, 404)) throw err;
        reason = isStatus(err, 403) ? 'not readable with these credentials' : 'not served by this cluster';
      }
    }
    if (!items) {
      skipped.push({ kind, reason });
      continue;
    }
    for (const obj of items) problems.push(...putObject(store, kind, { ...obj, kind }, 'cluster').problems);
  }
  return { store, problems, skipped };
}

/** A 429 (throttled, or CRD storage still initialising) is a "not yet": retry briefly, then give up. */
async function listWithRetry(client: KubeClient, path: string, deadlineMs = 15_000): Promise<{ items?: KubeObject[] }> {
  const until = Date.now() + deadlineMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      return await client.request<{ items?: KubeObject[] }>('GET', path);
    } catch (err) {
      if (!isStatus(err, 429) || Date.now() + delay > until) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
