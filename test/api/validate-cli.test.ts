// `gw validate` end to end through the CLI dispatcher: files, directories, exit codes, one line per problem.
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.js';
import { parseManifests, validateManifest } from '../../src/api/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

async function validate(...args: string[]): Promise<{ code: number; err: string[]; out: string[] }> {
  vi.restoreAllMocks();
  const err = vi.spyOn(console, 'error').mockImplementation(() => {});
  const out = vi.spyOn(console, 'log').mockImplementation(() => {});
  const code = await main(['validate', ...args]);
  return { code, err: err.mock.calls.map((c) => String(c[0])), out: out.mock.calls.map((c) => String(c[0])) };
}

const BAD = `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: { name: broken, namespace: team-a }
spec:
  mcp:
    targets:
      - name: one
        static: { host: mcp.example.com, port: 0 }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { namespace: team-a }
spec: {}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: { name: p }
spec:
  targetRefs: [{ group: gateway.networking.k8s.io, kind: HTTPRoute, name: r }]
  traffic:
    authorization: { policy: { matchExpressions: ['jwt.sub =='] } }
`;

describe('gw validate', () => {
  it('exits 0 and reports the object count for every example manifest', async () => {
    const r = await validate('-f', join(import.meta.dirname, '..', '..', 'examples', 'manifests'));
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.out.join('\n')).toMatch(/^gw validate: \d+ objects valid$/);
  });

  it('exits 1 with one `<source>: <Kind> <ns>/<name>: <path>: <message>` line per problem', async () => {
    const p = file('bad.yaml', BAD);
    const r = await validate('-f', p);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      `${p}: GwBackend team-a/broken: spec.mcp.targets[0].static.port: must be between 1 and 65535, got 0`,
      `${p}: HTTPRoute team-a/<unnamed>: metadata.name: is required`,
      expect.stringMatching(
        new RegExp(
          `^${p}: GwPolicy default/p: spec\\.traffic\\.authorization\\.policy\\.matchExpressions\\[0\\]: is not a valid CEL expression: `,
        ),
      ),
    ]);
  });

  it('reads several -f arguments and validates each GwModelList item', async () => {
    const list = file(
      'list.yaml',
      'apiVersion: gw.dev/v1alpha1\nkind: GwModelList\nitems:\n  - apiVersion: gw.dev/v1alpha1\n    kind: GwModel\n    metadata: { name: m, namespace: default }\n    spec: { parentRefs: [{ name: g }], provider: Nope }\n',
    );
    const ok = file('ok.json', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }));
    const r = await validate('-f', ok, '--filename', list);
    expect(r.code).toBe(1);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(
      /list\.yaml: GwModel default\/m: spec\.provider: must be one of OpenAI, .* or Custom, got "Nope"$/,
    );
  });

  it('reports YAML syntax errors, unknown Gw kinds and wrong versions by source', async () => {
    const p = file(
      'syntax.yaml',
      'kind: [unclosed\n---\napiVersion: gw.dev/v1beta1\nkind: GwThing\nmetadata: { name: x }\n',
    );
    const r = await validate(p);
    expect(r.code).toBe(1);
    expect(r.err[0]).toMatch(/syntax\.yaml: document 1 is not valid YAML/);
    expect(r.err).toContain(`${p}: GwThing default/x: apiVersion: must be gw.dev/v1alpha1, got "gw.dev/v1beta1"`);
    expect(r.err).toContain(
      `${p}: GwThing default/x: kind: must be one of GwBackend, GwModel, GwParameters, GwPolicy, GwModelList, got "GwThing"`,
    );
  });

  it('exits 2 on usage errors and 1 for a missing file', async () => {
    expect((await validate()).code).toBe(2);
    expect((await validate('--frobnicate')).code).toBe(2);
    const r = await validate('-f', join(dir, 'missing.yaml'));
    expect(r.code).toBe(1);
    expect(r.err[0]).toMatch(/missing\.yaml: cannot be read: ENOENT/);
  });
});

// The mistakes a newcomer makes in Gateway API objects, which the API server rejects and gw validate used to pass.
const GATEWAY_API_MISTAKES = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: web }
spec:
  gatewayClassName: gw
  listeners:
    - { name: http, protocol: HTTP }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: one-parent, namespace: team-a }
spec:
  parentRef: { name: web, namespace: default }
  rules:
    - backendRefs: [{ name: echo, port: 80 }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: one-backend, namespace: team-a }
spec:
  parentRefs: [{ name: web, namespace: default }]
  rules:
    - backendRef: { name: echo, port: 80 }
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: { name: gw }
spec: { controllerName: gw.dev/gateway-controller, paramtersRef: { group: gw.dev, kind: GwParameters, name: p } }
`;

describe('gw validate on Gateway API kinds', () => {
  it('reports an unknown field with the field it most likely meant, and a listener without port', async () => {
    const p = file('gateway-api-mistakes.yaml', GATEWAY_API_MISTAKES);
    const r = await validate('-f', p);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      `${p}: Gateway default/web: spec.listeners[0].port: is required`,
      `${p}: HTTPRoute team-a/one-parent: spec.parentRef: is not a known field; did you mean parentRefs?`,
      `${p}: HTTPRoute team-a/one-backend: spec.rules[0].backendRef: is not a known field; did you mean backendRefs?`,
      `${p}: GatewayClass gw: spec.paramtersRef: is not a known field; did you mean parametersRef?`,
    ]);
  });

  it("runs the CRDs' CEL rules and the controller's own refusals", async () => {
    const route = (rule: string) =>
      `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r }\nspec:\n  parentRefs: [{ name: web }]\n  rules: [${rule}]\n`;
    const p = file(
      'gateway-api-rules.yaml',
      [route('{ backendRefs: [{ name: echo }] }'), route('{ filters: [{ type: CORS, cors: {} }] }')].join('---\n'),
    );
    const r = await validate('-f', p);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      `${p}: HTTPRoute default/r: spec.rules[0].backendRefs[0]: Must have port for Service reference`,
      `${p}: HTTPRoute default/r: spec.rules[0].filters[0].type: CORS filters are not supported by this gateway; use a GwPolicy with traffic.cors`,
    ]);
  });

  it('names the versions the Gateway API release serves for a kind', async () => {
    const p = file(
      'gateway-api-version.yaml',
      'apiVersion: gateway.networking.k8s.io/v2\nkind: HTTPRoute\nmetadata: { name: r }\nspec: {}\n',
    );
    const r = await validate('-f', p);
    expect(r.err).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${p}: HTTPRoute default/r: apiVersion: must be gateway\\.networking\\.k8s\\.io/v1 or gateway\\.networking\\.k8s\\.io/v1beta1 \\(the versions of HTTPRoute in Gateway API v\\d+\\.\\d+\\.\\d+\\), got "gateway\\.networking\\.k8s\\.io/v2"$`,
        ),
      ),
    ]);
  });

  it('gives the Gw kinds the same help for a misspelled field', async () => {
    const p = file(
      'gw-typo.yaml',
      'apiVersion: gw.dev/v1alpha1\nkind: GwBackend\nmetadata: { name: b }\nspec: { statik: { host: h, port: 80 } }\n',
    );
    const r = await validate('-f', p);
    expect(r.err).toContain(`${p}: GwBackend default/b: spec.statik: is not a known field; did you mean static?`);
  });
});

describe('validateManifest', () => {
  it('applies schema defaults before CEL rules, as the API server does', () => {
    // apiVersion defaults to v1, so deploymentName is not required.
    const m = {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwBackend',
      metadata: { name: 'a' },
      spec: { ai: { provider: { azureopenai: { endpoint: 'e' } } } },
    };
    expect(validateManifest(m, 's')).toEqual([]);
  });

  it('rejects unknown top-level fields and a missing spec', () => {
    const problems = validateManifest(
      { apiVersion: 'gw.dev/v1alpha1', kind: 'GwPolicy', metadata: { name: 'a' }, extra: 1 },
      's',
    );
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec: is required',
      'extra: is not a known field',
    ]);
  });

  it('checks status too (what the controller writes): at most 8 conditions, unique by type', () => {
    const condition = (type: string) => ({
      type,
      status: 'True',
      reason: 'Accepted',
      message: '',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    const backend = (conditions: unknown[]) => ({
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwBackend',
      metadata: { name: 'b' },
      spec: { static: { host: 'h', port: 1 } },
      status: { conditions },
    });
    expect(validateManifest(backend([condition('Accepted'), condition('ResolvedRefs')]), 's')).toEqual([]);
    const nine = validateManifest(backend(Array.from({ length: 9 }, (_, i) => condition(`T${i}`))), 's');
    expect(nine.map((p) => `${p.path}: ${p.message}`)).toEqual(['status.conditions: must have at most 8 items, got 9']);
    const dup = validateManifest(backend([condition('Accepted'), condition('Accepted')]), 's');
    expect(dup.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'status.conditions[1]: duplicates the entry with type "Accepted"',
    ]);
  });

  it('parseManifests skips empty documents and keeps order', () => {
    const { manifests, problems } = parseManifests('---\na: 1\n---\n---\nb: 2\n', 's');
    expect(problems).toEqual([]);
    expect(manifests).toEqual([{ a: 1 }, { b: 2 }]);
  });
});
