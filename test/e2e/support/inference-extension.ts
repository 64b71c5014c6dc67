// The Gateway API Inference Extension's InferencePool CRD comes from its published Go module, read from the
// Go module cache like the Gateway API CRDs (gateway-api.ts). The module is not a dependency of
// test/cluster (its Kubernetes requirements would move the API server's), so its version and go.sum hash
// are pinned here, and `go mod download` verifies the hash against the checksum database.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const MODULE = 'sigs.k8s.io/gateway-api-inference-extension';
const VERSION = 'v1.2.0';
const SUM = 'h1:7H+ijrUImnW2ubcTakNgV723xDIdQx1Umv4vDVB+tTk=';

/** Absolute path of the module's inference.networking.k8s.io/v1 InferencePool CRD file. */
export function inferencePoolCrdFile(): string {
  // Outside any module (cwd /), so the pinned version alone is resolved.
  const out = execFileSync('go', ['mod', 'download', '-json', `${MODULE}@${VERSION}`], {
    cwd: '/',
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GO111MODULE: 'on' },
  });
  const mod = JSON.parse(out) as { Dir?: string; Sum?: string; Error?: string };
  if (!mod.Dir || mod.Sum !== SUM)
    throw new Error(
      `e2e: go mod download ${MODULE}@${VERSION}: ${mod.Error ?? `sum ${mod.Sum ?? 'none'}, expected ${SUM}`}`,
    );
  const file = join(mod.Dir, 'config', 'crd', 'bases', 'inference.networking.k8s.io_inferencepools.yaml');
  if (!existsSync(file)) throw new Error(`e2e: ${file} is missing from ${MODULE}@${VERSION}`);
  return file;
}
