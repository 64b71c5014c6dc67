// `npm run build` (and `make build`): bundles the web UI (src/ui, preact) into dist/ui with esbuild, so the
// proxy serves it from the package and the image without a CDN (docs/ui.md).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';

const out = 'dist/ui';
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ['src/ui/main.tsx'],
  outfile: `${out}/app.js`,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['index.html', 'app.css']) copyFileSync(`src/ui/${file}`, `${out}/${file}`);
