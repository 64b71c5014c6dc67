// Replays the Gateway API case table (testdata/gateway-api-cases) through `gw validate`: every valid manifest
// passes (the published schemas and the controller's own checks), every invalid one is rejected at the recorded
// field path. The e2e suite replays the same table against an API server with the same CRDs installed
// (test/e2e/gateway-api-parity.test.ts).
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { validateText } from '../../src/cli/validate.js';
import { formatProblem } from '../../src/problem.js';
import { controllerKinds } from '../../scripts/gen-gateway-api-schemas.js';
import { gatewayApiCaseDir, loadApiCases } from '../e2e/support/api-cases.js';

const cases = loadApiCases(gatewayApiCaseDir);

describe('Gateway API case table', () => {
  it('has a table file per Gateway API kind the controller reads, with valid and invalid cases', () => {
    const files = new Set(cases.map((c) => c.id.split(':')[0]));
    expect([...files].sort()).toEqual(
      controllerKinds()
        .map((k) => `${k.toLowerCase()}.yaml`)
        .sort(),
    );
    for (const file of files) {
      const mine = cases.filter((c) => c.id.startsWith(`${file}:`));
      expect(mine.some((c) => c.valid) && mine.some((c) => !c.valid), file).toBe(true);
      for (const c of mine) expect(`${String(c.manifest.kind).toLowerCase()}.yaml`, c.id).toBe(file);
    }
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const { problems } = validateText(stringify(c.manifest, { version: '1.1' }), 'case.yaml');
    const lines = problems.map(formatProblem);
    if (c.valid) expect(lines).toEqual([]);
    else {
      expect(lines.length, 'an invalid case must produce a problem').toBeGreaterThan(0);
      expect(
        problems.map((p) => p.path),
        lines.join('\n'),
      ).toContain(c.path);
    }
  });
});
