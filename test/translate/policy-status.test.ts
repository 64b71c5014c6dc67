// GwPolicy status says what the proxy will refuse: extAuth expressions are judged by the proxy's own compiler,
// and guardrail processors are judged in the policy's namespace even when no route reaches the policy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileExtAuth } from '../../src/proxy/auth/ext-auth.js';
import { extAuthCelProblems, toExtAuth } from '../../src/translate/policies/ext-auth.js';
import { applyChange, translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';
import type { Rec } from '../../src/translate/objects/read.js';

interface CelCase {
  name: string;
  extAuth: Rec;
  problems: string[];
}
const cases = JSON.parse(readFileSync(join(import.meta.dirname, 'cases', 'ext-auth-cel.json'), 'utf8')) as CelCase[];
const anyUrl = () => ({ url: 'http://resolved.example:1' });

describe('traffic.extAuth expressions', () => {
  for (const c of cases) {
    it(`names the fields that do not compile: ${c.name}`, () => {
      expect(extAuthCelProblems(c.extAuth).map((p) => p.path)).toEqual(c.problems);
    });
  }

  it('reports as invalid exactly the policies whose translated extAuth the proxy refuses', () => {
    for (const c of cases) {
      const ir = toExtAuth(c.extAuth, anyUrl);
      if (typeof ir === 'string') throw new Error(`${c.name}: not translated: ${ir}`);
      const proxyRefuses = typeof compileExtAuth(ir as Parameters<typeof compileExtAuth>[0]) === 'string';
      expect({ name: c.name, proxyRefuses }).toEqual({
        name: c.name,
        proxyRefuses: extAuthCelProblems(c.extAuth).length > 0,
      });
    }
  });
});

describe('guardrail processors on the GwPolicy that set them', () => {
  const options = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' } as Parameters<
    typeof translateAll
  >[1];
  const policy = {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwPolicy',
    metadata: { name: 'guards', namespace: 'default', generation: 1 },
    spec: {
      targetRefs: [{ group: 'gw.dev', kind: 'GwBackend', name: 'mcp' }],
      backend: {
        mcp: {
          guardrails: {
            processors: [
              { remote: { backendRef: { name: 'guard', port: 9000 } }, methods: { 'tools/call': 'Request' } },
            ],
          },
        },
      },
    },
  };
  const backend = {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwBackend',
    metadata: { name: 'mcp', namespace: 'default', generation: 1 },
    spec: { mcp: { targets: [{ name: 't', static: { host: 't.example', port: 80 } }] } },
  };

  it('reports a missing processor Service as ResolvedRefs=False and clears it when the Service appears, with no route in between', () => {
    const store = createStore();
    putObject(store, 'GwBackend', backend, 't');
    putObject(store, 'GwPolicy', policy, 't');
    const state = translateAll(store, options);
    const conditions = () =>
      (state.statuses.get('GwPolicy/default/guards') as { ancestors: { conditions: Rec[] }[] }).ancestors[0]
        ?.conditions ?? [];
    expect(conditions().find((c) => c.type === 'ResolvedRefs')).toMatchObject({
      status: 'False',
      reason: 'BackendNotFound',
      message:
        'spec.backend.mcp.guardrails.processors[0].remote.backendRef: Service default/guard does not exist; the MCP methods those processors guard are refused',
    });
    putObject(
      store,
      'Service',
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'guard', namespace: 'default' },
        spec: { ports: [{ port: 9000 }] },
      },
      't',
    );
    applyChange(state, store, 'Service/default/guard', undefined);
    expect(conditions().map((c) => c.type)).toEqual(['Accepted', 'Attached']);
    expect(conditions()[0]).toMatchObject({ status: 'True', reason: 'Accepted' });
  });
});
