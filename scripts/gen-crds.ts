// `make crds`: writes crds/gw.dev_<plural>.yaml and identical copies under charts/gw/crds/ from src/api.
// `--check` writes nothing and exits 1 when a file would change.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { renderCrdFiles } from '../src/api/crd-yaml.js';

const root = join(import.meta.dirname, '..');
const check = process.argv.includes('--check');
let stale = 0;
for (const dir of ['crds', 'charts/gw/crds']) {
  mkdirSync(join(root, dir), { recursive: true });
  for (const { file, text } of renderCrdFiles()) {
    const path = join(root, dir, file);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (current === text) continue;
    stale++;
    if (check) console.error(`${dir}/${file} is out of date; run make crds`);
    else writeFileSync(path, text);
  }
}
if (!check) console.log(`crds: ${stale} file(s) written`);
process.exit(check && stale > 0 ? 1 : 0);
