// Golden cases for renderGatewayWorkload: testdata/<case>.yaml holds the Gateway, class-level and
// gateway-level GwParameters and options; <case>.out.yaml the rendered objects and problems.
// REFRESH_GOLDEN=1 rewrites the .out.yaml files. Every input GwParameters is validated against the
// CRD schema first, so cases only use parameters the API server would accept.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { validateManifest } from '../../src/api/index.js';
import type { Json } from '../../src/deployer/json.js';
import { sortKeys } from '../../src/deployer/json.js';
import type { DeployerOptions, RenderInput } from '../../src/deployer/render.js';
import { renderGatewayWorkload } from '../../src/deployer/render.js';

const dir = join(import.meta.dirname, 'testdata');
const defaultOptions: DeployerOptions = {
  controllerService: { name: 'gw', namespace: 'gw-system' },
  proxyImage: { registry: 'ghcr.io/gw-dev', repository: 'proxy', tag: 'v0.1.0' },
};

interface CaseFile extends Omit<RenderInput, 'options'> {
  options?: Partial<DeployerOptions>;
  /** Parameters the CRD schema rejects, used to show the deployer still reports problems cleanly. */
  skipSchemaCheck?: boolean;
}

describe('renderGatewayWorkload golden cases', () => {
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && !f.endsWith('.out.yaml'))
    .sort()) {
    const name = file.replace(/\.yaml$/, '');
    it(name.replaceAll('-', ' '), () => {
      const c = parse(readFileSync(join(dir, file), 'utf8')) as CaseFile;
      if (!c.skipSchemaCheck) {
        for (const p of [c.classParameters, c.gatewayParameters]) {
          if (!p) continue;
          const manifest = { apiVersion: 'gw.dev/v1alpha1', kind: 'GwParameters', ...p };
          expect(validateManifest(manifest, file)).toEqual([]);
        }
      }
      const result = renderGatewayWorkload({ ...c, options: { ...defaultOptions, ...(c.options ?? {}) } });
      const text = stringify(sortKeys(result as unknown as Json), { lineWidth: 0 });
      const outFile = join(dir, `${name}.out.yaml`);
      if (process.env.REFRESH_GOLDEN === '1') writeFileSync(outFile, text);
      expect(existsSync(outFile), `${outFile} is missing; run with REFRESH_GOLDEN=1`).toBe(true);
      expect(text).toBe(readFileSync(outFile, 'utf8'));
    });
  }
});
