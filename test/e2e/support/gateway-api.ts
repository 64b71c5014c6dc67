// Gateway API CRDs come from the sigs.k8s.io/gateway-api module that test/cluster/go.mod pins, read
// from the Go module cache: the version is reviewed in one place and no copies are committed.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { clusterDir } from './cluster.js';

export interface GatewayApiModule {
  version: string;
  /** The module's go.sum hash (`h1:…`), as `go mod download` verified it. */
  sum: string;
  /** Absolute paths of the standard channel's CustomResourceDefinition files. */
  crdFiles: string[];
}

export function gatewayApiModule(): GatewayApiModule {
  // `go mod download -json` prints the module's cache directory, downloading it first if needed.
  const out = execFileSync('go', ['mod', 'download', '-json', 'sigs.k8s.io/gateway-api'], {
    cwd: clusterDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const mod = JSON.parse(out) as { Version?: string; Dir?: string; Sum?: string; Error?: string };
  if (!mod.Dir || !mod.Version || !mod.Sum)
    throw new Error(`e2e: go mod download sigs.k8s.io/gateway-api: ${mod.Error ?? 'no directory'}`);
  // Since v1.5 ListenerSet is in the standard channel, so this covers it; the vap_* file is a
  // ValidatingAdmissionPolicy that guards against channel downgrades, not a CRD.
  const dir = join(mod.Dir, 'config', 'crd', 'standard');
  const crdFiles = readdirSync(dir)
    .filter((f) => f.startsWith('gateway.networking.k8s.io_') && f.endsWith('.yaml') && !f.includes('_vap_'))
    .sort()
    .map((f) => join(dir, f));
  if (crdFiles.length === 0) throw new Error(`e2e: no Gateway API CRD files in ${dir}`);
  return { version: mod.Version, sum: mod.Sum, crdFiles };
}
