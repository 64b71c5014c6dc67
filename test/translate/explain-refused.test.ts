// `gw explain` marks refused fields (issue 14): the field line says REFUSED with the reason, and the
// route lists every refusal that reaches it, security ones flagged.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { explainRoute, renderExplanation } from '../../src/translate/status/explain.js';
import { translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';
import { goldenInput, goldenOptions } from './golden-render.js';

function stateOf(file: string) {
  const text = goldenInput(readFileSync(join(import.meta.dirname, 'testdata', file), 'utf8'));
  const store = createStore();
  for (const { kind, obj } of parseManifests(text, file).objects) putObject(store, kind, obj, file);
  return translateAll(store, goldenOptions(text));
}

it('marks each refused field of the route REFUSED with its reason', () => {
  const e = explainRoute(stateOf('refused-fields.yaml'), 'HTTPRoute', 'default', 'echo', 'main');
  const extProc = e.routes[0]?.fields.find((f) => f.path === 'traffic.extProc');
  expect(extProc?.refused).toEqual([
    expect.objectContaining({ field: 'spec.traffic.extProc', security: true, source: 'GwPolicy default/traffic' }),
  ]);
  expect(e.routes[0]?.fields.find((f) => f.path === 'traffic.cors')?.refused).toBeUndefined();
  const text = renderExplanation(e);
  expect(text).toContain(
    'REFUSED spec.traffic.extProc: url: must be grpc://host:port or grpcs://host:port (the processor speaks gRPC; no path) [security: the route answers 503 rather than run without it]',
  );
  // A forwarded route applies traffic.transformation (issue 34): not refused here.
  expect(text).not.toContain('REFUSED spec.traffic.transformation');
  expect(e.notInEffect.map((n) => n.reason)).toEqual(['Enforced: Unsupported']);
});

it('lists refused fields of the GwBackend an edge reaches', () => {
  const e = explainRoute(stateOf('refused-fields.yaml'), 'HTTPRoute', 'default', 'echo', 'ai');
  expect(e.routes[0]?.refusals.map((r) => `${r.source} ${r.field}`)).toContain(
    'GwBackend default/llm spec.policies.ai.promptCaching',
  );
});

it('shows the security fields of an invalid policy that close the route (issue 31)', () => {
  const e = explainRoute(stateOf('fail-closed-invalid-policy.yaml'), 'HTTPRoute', 'default', 'closed');
  expect(e.routes[0]?.refusals.map((r) => `${r.source} ${r.field} ${r.security}`)).toEqual([
    'GwPolicy default/jwt-bad-rule spec.traffic.authorization true',
    'GwPolicy default/jwt-bad-rule spec.traffic.jwtAuthentication true',
  ]);
  const text = renderExplanation(e);
  expect(text).toContain('REFUSED GwPolicy default/jwt-bad-rule spec.traffic.authorization: the GwPolicy is invalid');
  expect(text).toMatch(/GwPolicy default\/jwt-bad-rule: Accepted: Invalid: .*it sets spec\.traffic\.authorization/);
});
