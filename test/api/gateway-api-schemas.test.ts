// The checked-in Gateway API schemas (src/api/gen/gateway-api) are what `make gateway-api-schemas` writes for
// the release test/cluster/go.mod requires. Without Go's module cache this checks the stamp the script writes
// (version, go.sum hash, a hash per file); the e2e suite, which has the module, regenerates and compares the
// files themselves (test/e2e/gateway-api-parity.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  controllerKinds,
  schemaDir,
  sha256,
  STAMP_FILE,
  type GatewayApiStamp,
} from '../../scripts/gen-gateway-api-schemas.js';
import { GATEWAY_API_KINDS } from '../../src/api/gateway-api.js';

const clusterDir = join(import.meta.dirname, '..', 'cluster');
const stamp = JSON.parse(readFileSync(join(schemaDir, STAMP_FILE), 'utf8')) as GatewayApiStamp;
const REGENERATE = 'run `make gateway-api-schemas` (it needs Go; the module comes from test/cluster/go.mod)';

/** The version and go.sum hash test/cluster pins for a module. */
function pinned(module: string): { version?: string; sum?: string } {
  const version = new RegExp(`^\\s*${module.replace(/\./g, '\\.')} (v\\S+)`, 'm').exec(
    readFileSync(join(clusterDir, 'go.mod'), 'utf8'),
  )?.[1];
  const sum = readFileSync(join(clusterDir, 'go.sum'), 'utf8')
    .split('\n')
    .map((l) => l.split(' '))
    .find(([m, v]) => m === module && v === version)?.[2];
  return { version, sum };
}

describe('src/api/gen/gateway-api', () => {
  it('comes from the sigs.k8s.io/gateway-api release test/cluster/go.mod requires', () => {
    const want = pinned(stamp.module);
    expect(want.version, 'test/cluster/go.mod must require sigs.k8s.io/gateway-api').toBeDefined();
    expect(
      { version: stamp.version, sum: stamp.sum },
      `the schemas were generated from ${stamp.version}, test/cluster pins ${want.version}: ${REGENERATE}`,
    ).toEqual(want);
  });

  it('holds exactly the files the stamp lists, unedited since the script wrote them', () => {
    const files = readdirSync(schemaDir)
      .filter((f) => f !== STAMP_FILE)
      .sort();
    expect(files, REGENERATE).toEqual(Object.keys(stamp.files).sort());
    for (const f of files)
      expect(
        sha256(readFileSync(join(schemaDir, f), 'utf8')),
        `${f} differs from what the script wrote: ${REGENERATE}`,
      ).toBe(stamp.files[f]);
  });

  it('has a schema for every Gateway API kind the controller reads, and src/api loads each', () => {
    expect(controllerKinds().length).toBeGreaterThanOrEqual(7);
    expect([...GATEWAY_API_KINDS].sort(), REGENERATE).toEqual(controllerKinds().sort());
    expect(Object.keys(stamp.sources).length).toBe(controllerKinds().length);
  });
});
