// Parity: `gw validate` and the API server (with crds/ installed) give every case of the API test table
// the same verdict, so what passes the CLI is admitted by `kubectl apply`, and the reverse.
//
// Every case goes through validateText, the function behind `gw validate -f -`, in this process; a few
// cases per table file also go through the built CLI (`node bin/gw.js validate -f -`, manifest on stdin)
// to prove the two agree. Spawning node for each of several hundred cases would cost minutes of CPU on
// a shared 2-core machine for no extra coverage.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { formatProblem } from '../../src/problem.js';
import { validateText } from '../../src/cli/validate.js';
import { loadApiCases, serverDryRun } from './support/api-cases.js';
import type { ApiCase, Verdict } from './support/api-cases.js';
import { gwResources, installGwCrds } from './support/gw-crds.js';
import type { GwResource } from './support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from './support/kube.js';
import { repoRoot } from './support/paths.js';

const gwCli = join(repoRoot, 'bin', 'gw.js');

// The table is YAML 1.1 (as kubectl reads manifests); written back as 1.1 so strings like 'yes' or
// '2024-10-21' stay quoted strings for gw validate.
const asYaml = (manifest: Record<string, unknown>) => stringify(manifest, { version: '1.1' });

function gwValidateInProcess(manifest: Record<string, unknown>): Verdict {
  const { problems } = validateText(asYaml(manifest), '-');
  return { valid: problems.length === 0, detail: problems.map(formatProblem).join('; ') || 'valid' };
}

function gwValidateCli(manifest: Record<string, unknown>): Promise<Verdict> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [gwCli, 'validate', '-f', '-'],
      { cwd: repoRoot },
      (err, stdout, stderr) => {
        const code = err ? err.code : 0;
        if (typeof code !== 'number') return reject(err);
        resolve({ valid: code === 0, detail: `exit ${code}: ${(stderr || stdout).trim()}` });
      },
    );
    child.stdin?.end(asYaml(manifest));
  });
}

let cases: ApiCase[] = [];
let resources = new Map<string, GwResource>();
let tableError: Error | undefined;
try {
  cases = loadApiCases();
  // A missing crds/ fails the table test below once, not every case.
  resources = gwResources();
} catch (err) {
  tableError = err as Error;
}

/** The first valid and first invalid case of each table file. */
function cliSample(all: ApiCase[]): ApiCase[] {
  const seen = new Set<string>();
  return all.filter((c) => {
    const key = `${c.id.split(':')[0]}/${c.valid}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

describe('gw validate and the API server agree', () => {
  const namespace = useNamespace('parity');

  beforeAll(async () => {
    await installGwCrds(inject('kubeconfig'), e2eKubeConfig());
  });

  it('has an API test table with valid and invalid cases', () => {
    if (tableError) throw tableError;
    expect(cases.some((c) => c.valid) && cases.some((c) => !c.valid), 'the table needs valid and invalid cases').toBe(
      true,
    );
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const api = e2eKubeConfig().makeApiClient(CustomObjectsApi);
    const cli = gwValidateInProcess(c.manifest);
    const resource = resources.get(String(c.manifest.kind));
    if (!resource) throw new Error(`e2e: no CRD in crds/ serves kind ${String(c.manifest.kind)}`);
    const server = await serverDryRun(api, c.manifest, namespace(), resource);
    const explain = `expected ${c.valid ? 'valid' : 'invalid'}${c.path ? ` at ${c.path}` : ''}\n  gw validate: ${cli.detail}\n  API server: ${server.detail}`;
    expect({ gw: cli.valid, server: server.valid }, explain).toEqual({ gw: c.valid, server: c.valid });
  });

  it('the built CLI gives the same verdict as validateText (sample per table file)', async () => {
    if (!existsSync(join(repoRoot, 'dist'))) throw new Error('e2e: dist/ is missing; run `make build` first');
    const sample = cliSample(cases);
    expect(sample.length).toBeGreaterThan(1);
    for (const c of sample) {
      const cli = await gwValidateCli(c.manifest);
      expect(cli.valid, `${c.id}: ${cli.detail}`).toBe(gwValidateInProcess(c.manifest).valid);
    }
  });
});
