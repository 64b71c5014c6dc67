// The standalone loader reports refused fields from the same coverage table as the CRDs (issue 14).
// Every field of the standalone schema is enforced today, so valid files carry no refusals.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load.js';
import { refusalLines } from '../../src/config/refusals.js';

const dir = path.join(import.meta.dirname, 'testdata/valid');
const env = { PORT: '3000', CLIENT_SECRET: 'shh', API_TOKEN: 'tok' };

it('finds no refused field in the valid example files, and their routes carry none', async () => {
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    const { refusals, snapshot } = await loadConfigFile(path.join(dir, name), env);
    expect(refusals).toEqual([]);
    const route = snapshot.resources.find((r) => r.route)?.route;
    expect(route?.refusals).toEqual([]);
  }
});

it('prints one line per refusal naming the file, the field and the reason', () => {
  expect(
    refusalLines([{ field: 'mcp.x', source: 'file c.yaml', reason: 'x is not supported', security: true }], 'c.yaml'),
  ).toEqual(['c.yaml: mcp.x: refused (security: requests are answered 503): x is not supported']);
});
