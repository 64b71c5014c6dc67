// Local mode reads a Secret as the API server stores it (stringData merged into data), and a Secret that
// a backend needs but that is missing is reported on the GwBackend, on the route and in the reload's problems.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalController } from '../../../src/controller/local/local-controller.js';
import { getObject } from '../../../src/translate/objects/store.js';

const BACKEND = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: default}
spec:
  gatewayClassName: gw
  listeners: [{name: http, port: 8080, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: llm, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules: [{backendRefs: [{group: gw.dev, kind: GwBackend, name: llm}]}]
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: llm, namespace: default}
spec:
  ai:
    groups:
      - providers:
          - name: openai
            openai: {model: gpt-4o-mini}
            policies: {auth: {secretRef: {name: openai-key}}}
`;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function load(secret?: string) {
  const manifests = mkdtempSync(join(tmpdir(), 'gw-secrets-'));
  dirs.push(manifests);
  writeFileSync(join(manifests, 'llm.yaml'), BACKEND);
  if (secret) writeFileSync(join(manifests, 'secret.yaml'), secret);
  const c = new LocalController({
    manifests,
    translate: { controllerName: 'gw.dev/gateway-controller' },
    builtinClass: { name: 'gw', controllerName: 'gw.dev/gateway-controller' },
    logger: pino({ level: 'silent' }),
  });
  const summary = c.reload();
  type Conditions = { conditions: { type: string; status: string; message: string }[] };
  const backend = c.statuses.get('GwBackend/default/llm') as Conditions;
  const route = c.statuses.get('HTTPRoute/default/llm') as { parents: Conditions[] };
  const resolved = (s: Conditions | undefined) => s?.conditions.find((x) => x.type === 'ResolvedRefs');
  return { c, summary, backend: resolved(backend), route: resolved(route.parents[0]) };
}

describe('local mode Secrets', () => {
  it('merges stringData into data as the API server does: base64, stringData winning over data', () => {
    const { c, backend, route, summary } = load(`apiVersion: v1
kind: Secret
metadata: {name: openai-key, namespace: default}
data: {Authorization: ${Buffer.from('Bearer old').toString('base64')}, other: ${Buffer.from('kept').toString('base64')}}
stringData: {Authorization: Bearer sk-local}
`);
    const stored = getObject(c.store, 'Secret', 'default/openai-key')?.obj;
    expect(stored?.data).toEqual({
      Authorization: Buffer.from('Bearer sk-local').toString('base64'),
      other: Buffer.from('kept').toString('base64'),
    });
    expect(stored).not.toHaveProperty('stringData');
    expect(backend).toMatchObject({ status: 'True' });
    expect(route).toMatchObject({ status: 'True' });
    expect(summary.problems).toEqual([]);
  });

  it('reports a missing Secret on the GwBackend, on the route and in the reload problems', () => {
    const { backend, route, summary } = load();
    expect(backend?.status).toBe('False');
    expect(backend?.message).toContain('Secret default/openai-key does not exist');
    expect(route?.status).toBe('False');
    expect(route?.message).toContain('Secret default/openai-key does not exist');
    expect(summary.problems.map((p) => p.object)).toEqual(['GwBackend default/llm', 'HTTPRoute default/llm']);
  });

  it('reports a Secret without the key the backend reads (default Authorization)', () => {
    const { backend, summary } = load(`apiVersion: v1
kind: Secret
metadata: {name: openai-key, namespace: default}
stringData: {apiKey: sk-local}
`);
    expect(backend?.status).toBe('False');
    expect(backend?.message).toContain('Secret default/openai-key has no non-empty key Authorization');
    expect(summary.problems.length).toBeGreaterThan(0);
  });
});
