// Gateway API parity: the schemas checked in under src/api/gen/gateway-api are exactly what
// `make gateway-api-schemas` makes of the CRD files this cluster installed (global setup, from the module
// test/cluster/go.mod requires), and `gw validate` and the API server give every case of the Gateway API table
// (test/api/testdata/gateway-api-cases) the same verdict.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { renderGatewayApiSchemas, schemaDir, STAMP_FILE } from '../../scripts/gen-gateway-api-schemas.js';
import { validateText } from '../../src/cli/validate.js';
import { formatProblem } from '../../src/problem.js';
import { gatewayApiCaseDir, loadApiCases, serverDryRun, type ServedResource } from './support/api-cases.js';
import { gatewayApiModule } from './support/gateway-api.js';
import { e2eKubeConfig, useNamespace } from './support/kube.js';

describe('src/api/gen/gateway-api', () => {
  it('is what make gateway-api-schemas writes from the CRD files the cluster installed', () => {
    const mod = gatewayApiModule();
    const want = renderGatewayApiSchemas(
      mod,
      mod.crdFiles.map((f) => ({ file: basename(f), text: readFileSync(f, 'utf8') })),
    );
    expect(readdirSync(schemaDir).sort()).toEqual(want.map((w) => w.file).sort());
    for (const w of want)
      expect(readFileSync(join(schemaDir, w.file), 'utf8'), `${w.file}: run make gateway-api-schemas`).toBe(w.text);
  });
});

/** Kind → plural and scope, from the checked-in schema files (each names its CRD's). */
function servedResources(): Map<string, ServedResource> {
  const out = new Map<string, ServedResource>();
  for (const f of readdirSync(schemaDir).filter((x) => x !== STAMP_FILE)) {
    const crd = JSON.parse(readFileSync(join(schemaDir, f), 'utf8')) as { kind: string; plural: string; scope: string };
    out.set(crd.kind, { plural: crd.plural, namespaced: crd.scope === 'Namespaced' });
  }
  return out;
}

describe('gw validate and the API server agree on the Gateway API kinds', () => {
  const namespace = useNamespace('gwapi-parity');
  const cases = loadApiCases(gatewayApiCaseDir);
  const resources = servedResources();

  it.each(cases.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const resource = resources.get(String(c.manifest.kind));
    if (!resource) throw new Error(`e2e: no Gateway API schema for kind ${String(c.manifest.kind)}`);
    const { problems } = validateText(stringify(c.manifest, { version: '1.1' }), '-');
    const server = await serverDryRun(
      e2eKubeConfig().makeApiClient(CustomObjectsApi),
      c.manifest,
      namespace(),
      resource,
    );
    const explain = `expected ${c.valid ? 'valid' : 'invalid'}${c.path ? ` at ${c.path}` : ''}\n  gw validate: ${problems.map(formatProblem).join('; ') || 'valid'}\n  API server: ${server.detail}`;
    expect({ gw: problems.length === 0, server: server.valid }, explain).toEqual({ gw: c.valid, server: c.valid });
  });
});
