// Prompt guards this proxy cannot run make their edge refuse traffic (503 guard_not_enforced), never pass it unguarded.
import { afterAll, describe, expect, it } from 'vitest';
import { createPromptGuards, unenforcedPromptGuard, type PromptGuards } from '../../../src/proxy/guard/factory.js';
import type { GuardVerdict } from '../../../src/proxy/guard/types.js';
import { captureLog, chat, completion, ctxOf, edgeOf, guardsFor, llmManifests } from './guard-harness.js';

const all: PromptGuards[] = [];
afterAll(async () => {
  await Promise.all(all.map((p) => p.close()));
});

const errorOf = (v: GuardVerdict | undefined) =>
  v?.action === 'reject' ? { status: v.status, ...(JSON.parse(v.body) as object) } : v;
const hi = chat({ role: 'user', content: 'hi' });

describe('unenforceable prompt guards', () => {
  it('refuses both phases of an edge with a step it cannot run (Model Armor without a credential) and logs that once per edge', async () => {
    const manifests = llmManifests({
      request: [{ regex: { builtins: ['Ssn'] } }, { googleModelArmor: { templateId: 't', projectId: 'p' } }],
    });
    const { route, ref } = edgeOf(manifests);
    expect(unenforcedPromptGuard(route, ref)).toEqual([
      'GwPolicy default/guards backend.ai.promptGuard.request[1].googleModelArmor.policies.auth: gcp, key or secretRef is required (implicit Google credentials are not read)',
    ]);
    const pg = createPromptGuards({ env: {} });
    all.push(pg);
    const logs = captureLog();
    const first = pg.llmGuards(route, ref, logs.log);
    pg.llmGuards(route, ref, logs.log); // the next snapshot apply builds the edge again
    expect(errorOf(await first?.request?.(hi, ctxOf(hi)))).toEqual({
      status: 503,
      error: 'guard_not_enforced',
      error_description:
        'route HTTPRoute/default/chat/0 backend GwBackend/default/llm has prompt guards this proxy does not enforce; refusing rather than forwarding unguarded',
    });
    expect(errorOf(await first?.response?.(completion('x'), ctxOf(hi)))).toMatchObject({
      status: 503,
      error: 'guard_not_enforced',
    });
    expect(logs.entries().filter((e) => e.level === 50)).toHaveLength(1);
  });

  it('refuses an edge whose webhook Service does not exist', async () => {
    const { guards, logs } = guardsFor(
      llmManifests({ request: [{ webhook: { backendRef: { name: 'missing', port: 8000 } } }] }),
      all,
    );
    expect(errorOf(await guards?.request?.(hi, ctxOf(hi)))).toMatchObject({ status: 503, error: 'guard_not_enforced' });
    expect(logs.entries()[0]).toMatchObject({
      reasons: [
        'GwPolicy default/guards backend.ai.promptGuard.request[0].webhook.backendRef: Service default/missing does not exist',
      ],
    });
  });

  it('refuses an edge whose provider has its own, different prompt guards', () => {
    const groups = `  ai:
    groups:
    - providers:
      - name: primary
        openai: {model: gpt-4o-mini}
        host: api.openai.example
        port: 443
        policies: {ai: {promptGuard: {request: [{regex: {builtins: [Email]}}]}}}
`;
    const manifests = llmManifests({ request: [{ regex: { builtins: ['Ssn'] } }] }).replace(
      / {2}ai:\n {4}provider:\n(?: {6}.*\n)+/,
      groups,
    );
    expect(manifests).toContain('name: primary');
    const { route, ref } = edgeOf(manifests);
    expect(unenforcedPromptGuard(route, ref)).toEqual([
      'provider primary has its own backend.ai.promptGuard (from GwBackend default/llm provider primary), which this proxy does not apply per provider',
    ]);
  });

  it('refuses a webhook step whose header expression does not compile (an IR not from the controller), naming the header', async () => {
    const manifests = llmManifests(
      {
        request: [
          {
            webhook: {
              backendRef: { group: 'gw.dev', kind: 'GwBackend', name: 'hook' },
              headers: { 'X-Ok': 'jwt.sub' },
            },
          },
        ],
      },
      '---\napiVersion: gw.dev/v1alpha1\nkind: GwBackend\nmetadata: {name: hook, namespace: default}\nspec: {static: {host: 127.0.0.1, port: 9}}\n',
    );
    const { route, ref } = edgeOf(manifests);
    const webhook = ref.promptGuard?.request[0]?.webhook;
    if (!webhook) throw new Error('the translator produced no webhook step');
    webhook.headers = { 'x-bad': 'jwt.sub +' };
    const pg = createPromptGuards({ env: {} });
    all.push(pg);
    const logs = captureLog();
    const guards = pg.llmGuards(route, ref, logs.log);
    expect(errorOf(await guards?.request?.(hi, ctxOf(hi)))).toMatchObject({ status: 503, error: 'guard_not_enforced' });
    expect(String((logs.entries()[0]?.reasons as string[])[0])).toMatch(
      /^GwPolicy default\/guards backend\.ai\.promptGuard\.request\[0\]\.webhook\.headers\["x-bad"\] is not a valid CEL expression/,
    );
  });

  it('asks the forwarder to hold streamed answers when promptGuard.streaming is Buffered and response guards exist', async () => {
    const { guards } = guardsFor(
      llmManifests({ streaming: 'Buffered', response: [{ regex: { action: 'Mask', builtins: ['Email'] } }] }),
      all,
      { GUARDRAIL_STREAM_BUFFER_BYTES: '4096' },
    );
    expect(guards?.heldStreams).toEqual({ maxBytes: 4096 });
    expect(guards?.request).toBeUndefined();
  });

  it('lets streamed requests through by default (streaming Disabled: response guards skip streamed responses)', async () => {
    const { guards } = guardsFor(llmManifests({ response: [{ regex: { action: 'Mask', builtins: ['Email'] } }] }), all);
    expect(guards?.request).toBeUndefined();
    expect(guards?.response).toBeDefined();
    expect(guards?.heldStreams).toBeUndefined();
  });

  it('acts on the typed prompt_guard only: the translator emits it for every edge whose policy sets promptGuard, the proxy reads no backend.ai JSON', () => {
    const { route, ref } = edgeOf(llmManifests({ request: [{ regex: { builtins: ['Ssn'] } }] }));
    expect(ref.promptGuard?.request).toHaveLength(1);
    const untyped = { ...ref, promptGuard: null };
    expect(unenforcedPromptGuard(route, untyped)).toEqual([]);
    const pg = createPromptGuards({ env: {} });
    all.push(pg);
    expect(pg.llmGuards(route, untyped, captureLog().log)).toBeUndefined();
  });

  it('builds no guards for an edge without prompt guards', () => {
    const manifests = llmManifests({ request: [{ regex: { builtins: ['Ssn'] } }] }).replace(
      /---\napiVersion: gw.dev\/v1alpha1\nkind: GwPolicy[\s\S]*$/,
      '',
    );
    const { route, ref } = edgeOf(manifests);
    const pg = createPromptGuards({ env: {} });
    all.push(pg);
    expect(pg.llmGuards(route, ref, captureLog().log)).toBeUndefined();
    expect(unenforcedPromptGuard(route, ref)).toEqual([]);
  });
});
