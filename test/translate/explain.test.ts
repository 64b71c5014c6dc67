import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/explain.js';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { explainRoute, parseRouteArg, renderExplanation } from '../../src/translate/status/explain.js';
import { translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';
import { goldenInput, goldenOptions } from './golden-render.js';

function stateOf(file: string) {
  const text = goldenInput(readFileSync(join(import.meta.dirname, 'testdata', file), 'utf8'));
  const store = createStore();
  for (const { kind, obj } of parseManifests(text, file).objects) putObject(store, kind, obj, file);
  return translateAll(store, goldenOptions(text));
}

describe('gw explain route', () => {
  it('names the source of each effective field and the objects it overrode', () => {
    const e = explainRoute(stateOf('policy-route-beats-listener.yaml'), 'HTTPRoute', 'default', 'echo');
    expect(e.routes).toHaveLength(1);
    expect(e.routes[0]?.fields).toEqual([
      {
        path: 'traffic.cors',
        value: '{"allowOrigins":["https://route.example"]}',
        provenance: {
          source: 'GwPolicy default/route-cors',
          level: 'Route',
          overridden: ['GwPolicy default/listener-cors', 'GwPolicy default/gw-cors'],
        },
      },
    ]);
    const text = renderExplanation(e);
    expect(text).toContain('set by GwPolicy default/route-cors (level Route)');
    expect(text).toContain('overrides GwPolicy default/listener-cors, GwPolicy default/gw-cors');
  });

  it('lists conflicted and rejected policies aimed at the route', () => {
    const conflicted = explainRoute(stateOf('policy-conflict-older-wins.yaml'), 'HTTPRoute', 'default', 'echo');
    expect(conflicted.notInEffect).toEqual([
      expect.objectContaining({ policy: 'GwPolicy default/newer', reason: 'Conflicted: Conflicted' }),
    ]);
    const rejected = explainRoute(stateOf('frontend-on-route-rejected.yaml'), 'HTTPRoute', 'default', 'echo');
    expect(rejected.notInEffect.map((n) => n.reason)).toEqual(['Accepted: Invalid', 'Attached: NotAttached']);
  });

  it('shows MCP target settings merged as policy resource < backend < target', () => {
    const e = explainRoute(stateOf('mcp-target-policy-order.yaml'), 'HTTPRoute', 'default', 'r-mcp');
    const tools = e.routes[0]?.backends[0]?.targets.find((t) => t.name === 'tools');
    expect(tools?.fields.find((f) => f.path === 'backend.tls')?.provenance).toEqual({
      source: 'GwBackend default/mcp target tools',
      level: 'Target',
      overridden: ['GwBackend default/mcp', 'GwPolicy default/on-tools'],
    });
  });

  it('says an inline upstream key is set without printing it', () => {
    const text = `${goldenInput(readFileSync(join(import.meta.dirname, 'testdata', 'ai-provider.yaml'), 'utf8'))}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: inline-key, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: llm}]
  backend:
    auth: {key: sk-inline-SECRET}
`;
    const store = createStore();
    for (const { kind, obj } of parseManifests(text, 't.yaml').objects) putObject(store, kind, obj, 't.yaml');
    const e = explainRoute(translateAll(store, goldenOptions(text)), 'HTTPRoute', 'default', 'r-llm');
    expect(e.routes[0]?.backends[0]?.fields.find((f) => f.path === 'backend.auth')?.value).toBe('{"key":"<redacted>"}');
    expect(renderExplanation(e)).not.toContain('sk-inline-SECRET');
  });

  it('narrows to one rule and says when no gateway serves the route', () => {
    const state = stateOf('policy-rule-beats-route.yaml');
    const rule = explainRoute(state, 'HTTPRoute', 'default', 'echo', 'other');
    expect(rule.routes.map((r) => r.route)).toEqual(['HTTPRoute/default/echo/other']);
    expect(rule.routes[0]?.fields[0]?.provenance.source).toBe('GwPolicy default/route-authz');
    expect(renderExplanation(explainRoute(state, 'HTTPRoute', 'default', 'absent'))).toContain(
      'no Gateway of this controller serves it',
    );
  });

  it('says why a route has no policy fields when its backends were left out (the shipped LLM example without its Secrets)', async () => {
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
      out.push(String(s));
      return true;
    });
    try {
      expect(await run(['route', 'default/llm', '--manifests', 'examples/manifests'])).toBe(0);
    } finally {
      write.mockRestore();
    }
    const text = out.join('');
    expect(text).not.toMatch(/\(no policy fields\)\n/);
    expect(text).toContain('(no policy fields: every backend of this route was left out, see below)');
    expect(text).toContain('backend left out (InvalidBackendAuth): provider openai: ');
    expect(text).toContain('Secret default/openai-key does not exist');
  });

  it('parses route arguments', () => {
    expect(parseRouteArg('ns/r/rule')).toEqual({ namespace: 'ns', name: 'r', rule: 'rule' });
    expect(parseRouteArg('r')).toEqual({ namespace: 'default', name: 'r' });
    expect(parseRouteArg('a//b')).toBeUndefined();
    expect(parseRouteArg('a/b/c/d')).toBeUndefined();
  });
});

describe('gw explain command', () => {
  it('prints the explanation for a route in a manifests folder and rejects bad arguments', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-explain-'));
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
      out.push(String(s));
      return true;
    });
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const objects = readFileSync(join(import.meta.dirname, 'testdata', 'policy-strategy-override.yaml'), 'utf8');
      writeFileSync(join(dir, 'objects.yaml'), goldenInput(objects));
      expect(await run(['route', 'default/echo', '--manifests', dir])).toBe(0);
      expect(out.join('')).toContain(
        'traffic.authorization = {"action":"Require","policy":{"matchExpressions":["has(jwt.sub)"]}}',
      );
      expect(out.join('')).toContain('set by GwPolicy default/platform (level Gateway)');
      expect(await run(['route', 'default/missing', '--manifests', dir])).toBe(1);
      expect(await run(['route', 'a/b/c/d', '--manifests', dir])).toBe(2);
      expect(await run(['route', 'default/echo'])).toBe(2);
    } finally {
      write.mockRestore();
      err.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
