// Parity: `gw validate` and the API server (with crds/ installed) agree on every case of the API test
// table, so what passes the CLI never fails at `kubectl apply`, and the reverse.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { loadApiCases } from './support/api-cases.js';
import type { ApiCase } from './support/api-cases.js';
import { installGwCrds } from './support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from './support/kube.js';
import { repoRoot } from './support/paths.js';

const gwCli = join(repoRoot, 'bin', 'gw.js');

interface Verdict {
  valid: boolean;
  detail: string;
}

function gwValidate(manifest: Record<string, unknown>): Promise<Verdict> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [gwCli, 'validate', '-f', '-'], { cwd: repoRoot }, (err, stdout, stderr) => {
      const code = err ? err.code : 0;
      if (typeof code !== 'number') return reject(err);
      resolve({ valid: code === 0, detail: `exit ${code}: ${(stderr || stdout).trim()}` });
    });
    child.stdin?.end(stringify(manifest));
  });
}

async function serverDryRun(api: KubernetesObjectApi, manifest: Record<string, unknown>, namespace: string): Promise<Verdict> {
  // Each case runs in this file's namespace; the server drops metadata.namespace for cluster-scoped kinds.
  const metadata = { ...(manifest.metadata as Record<string, unknown> | undefined), namespace };
  try {
    await api.create({ ...manifest, metadata }, undefined, 'All', 'gw-e2e-parity');
    return { valid: true, detail: 'created (dry run)' };
  } catch (err) {
    const e = err as { code?: number; body?: unknown };
    // 422 Invalid and 400 BadRequest (e.g. a wrong type that fails decoding) are verdicts; anything else
    // (404: kind not installed) is a broken test setup and must not count as "invalid".
    if (e.code === 422 || e.code === 400) return { valid: false, detail: `${e.code}: ${String(e.body)}` };
    throw err;
  }
}

let cases: ApiCase[] = [];
let tableError: Error | undefined;
try {
  cases = loadApiCases();
} catch (err) {
  tableError = err as Error;
}

describe('gw validate and the API server agree', () => {
  const namespace = useNamespace('parity');

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'dist'))) throw new Error('e2e: dist/ is missing; run `make build` first');
    await installGwCrds(inject('kubeconfig'), e2eKubeConfig());
  });

  it('has an API test table to compare', () => {
    if (tableError) throw tableError;
    expect(cases.length).toBeGreaterThan(0);
    expect(cases.some((c) => c.valid) && cases.some((c) => !c.valid), 'the table needs valid and invalid cases').toBe(true);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const api = KubernetesObjectApi.makeApiClient(e2eKubeConfig());
    const [cli, server] = await Promise.all([gwValidate(c.manifest), serverDryRun(api, c.manifest, namespace())]);
    const explain = `expected ${c.valid ? 'valid' : 'invalid'}${c.path ? ` at ${c.path}` : ''}\n  gw validate: ${cli.detail}\n  API server: ${server.detail}`;
    expect({ cli: cli.valid, server: server.valid }, explain).toEqual({ cli: c.valid, server: c.valid });
  });
});
