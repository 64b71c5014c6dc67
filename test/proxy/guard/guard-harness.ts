// Prompt guards as the proxy gets them: GwPolicy YAML → the real translator → IR edge → LlmGuards.
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { decodeSnapshot, encodeSnapshot } from '../../../src/ir/load.js';
import type { BackendRef, Route } from '../../../src/ir/types.js';
import { createPromptGuards, type PromptGuards } from '../../../src/proxy/guard/factory.js';
import type { GuardRequestContext, LlmGuards } from '../../../src/proxy/guard/types.js';
import { GATEWAY_WEB, translatedIr } from '../translated-ir.js';

/** Gateway default/web, an AI GwBackend `llm`, one HTTPRoute to it, and a GwPolicy with `promptGuard` (JSON is YAML). */
export function llmManifests(promptGuard: unknown, extra = ''): string {
  return `${GATEWAY_WEB}---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: llm, namespace: default}
spec:
  ai:
    provider:
      openai: {model: gpt-4o-mini}
      host: api.openai.example
      port: 443
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: chat, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - backendRefs: [{group: gw.dev, kind: GwBackend, name: llm}]
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: guards, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: llm}]
  backend:
    ai:
      promptGuard: ${JSON.stringify(promptGuard)}
${extra}`;
}

/** A GwBackend `webhook` → 127.0.0.1:`port`, for webhook steps' backendRef (cluster DNS does not exist here). */
export function webhookBackend(port: number): string {
  return `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: webhook, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${port}}
`;
}

export const webhookRef = { group: 'gw.dev', kind: 'GwBackend', name: 'webhook' };

/** `wire`: the IR goes through the proto encoding of the xDS stream first, as a real proxy receives it. */
export function edgeOf(manifests: string, wire = false): { route: Route; ref: BackendRef } {
  const ir = wire ? decodeSnapshot(encodeSnapshot(translatedIr(manifests))) : translatedIr(manifests);
  const route = ir.resources.find((r) => r.route)?.route;
  const ref = route?.backends[0];
  if (!route || !ref) throw new Error('the manifests produced no route → backend edge');
  return { route, ref };
}

export interface LogCapture {
  log: Logger;
  entries(): Record<string, unknown>[];
  text(): string;
}

export function captureLog(): LogCapture {
  const lines: string[] = [];
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString('utf8'));
        cb();
      },
    }),
  );
  return {
    log,
    entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    text: () => lines.join(''),
  };
}

/** LlmGuards for the edge the manifests make, with a fresh PromptGuards (close it in afterAll via `all`). */
export function guardsFor(
  manifests: string,
  all: PromptGuards[],
  env: Record<string, string> = {},
): { guards: LlmGuards | undefined; logs: LogCapture } {
  const pg = createPromptGuards({ env });
  all.push(pg);
  const { route, ref } = edgeOf(manifests);
  const logs = captureLog();
  return { guards: pg.llmGuards(route, ref, logs.log), logs };
}

export function chat(...messages: Record<string, unknown>[]): Record<string, unknown> {
  return { model: 'gpt-4o-mini', messages };
}

export function completion(content: string): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  };
}

export function ctxOf(body: Record<string, unknown>, extra: Partial<GuardRequestContext> = {}): GuardRequestContext {
  return {
    request: {
      method: 'POST',
      path: '/v1/chat/completions',
      host: 'gw.example',
      headers: { 'content-type': 'application/json' },
    },
    llmRequest: body,
    ...extra,
  };
}
