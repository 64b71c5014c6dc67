// LLM routes end to end: manifests → the real translator → the real ProxyRuntime on 127.0.0.1:0, with
// every log line captured (tests check that keys never appear) and a clock the tests move.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ProxyRuntime, type RuntimeOptions } from '../../../src/proxy/runtime.js';
import { GATEWAY_WEB, gwBackendRef, httpRoute, translatedIr } from '../translated-ir.js';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';

export interface LlmProxy {
  runtime: ProxyRuntime;
  base: string;
  /** Every log line the runtime wrote, level debug and up. */
  logs: string[];
  /** Moves the runtime's clock (provider backoff). */
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function startLlmProxy(
  manifests: string,
  opts: Partial<RuntimeOptions> = {},
  translate: { enableInferenceExtension?: boolean } = {},
): Promise<LlmProxy> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  let now = 1_800_000_000_000;
  const runtime = new ProxyRuntime({ log: pino({ level: 'debug' }, sink), clock: () => now, ...opts });
  await runtime.apply(translatedIr(manifests, 'default/web', { enableModels: true, ...translate }));
  return {
    runtime,
    logs,
    base: `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`,
    advance: (ms) => {
      now += ms;
    },
    close: () => runtime.close(),
  };
}

export const GATEWAY = GATEWAY_WEB;

/** An HTTPRoute `name` with one rule sending PathPrefix `prefix` to `backendRef` (YAML flow mapping). */
function prefixRoute(name: string, prefix: string, backendRef: string, rule?: string): string {
  return `\n${httpRoute(name, { prefix, backendRefs: backendRef, ruleName: rule })}`;
}

/** An HTTPRoute `name` sending PathPrefix `prefix` to GwBackend `backend`. */
export function aiRoute(name: string, prefix: string, backend: string): string {
  return prefixRoute(name, prefix, gwBackendRef(backend));
}

/** An HTTPRoute `name` whose one rule, `chat`, sends PathPrefix `prefix` to the GwModel backend `*`. */
export function modelRoute(name: string, prefix: string): string {
  return prefixRoute(name, prefix, '{group: gw.dev, kind: GwModel, name: "*"}', 'chat');
}

/** A GwModel `name` attached to rule `chat` of HTTPRoute `route`; `spec` is indented YAML under `spec:`. */
export function gwModel(name: string, spec: string, route = 'llm'): string {
  return `
---
apiVersion: gw.dev/v1alpha1
kind: GwModel
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{kind: HTTPRoute, name: ${route}, sectionName: chat}]
${spec}`;
}

export function secret(name: string, data: Record<string, string>): string {
  const entries = Object.entries(data)
    .map(([k, v]) => `${k}: ${Buffer.from(v).toString('base64')}`)
    .join(', ');
  return `
---
apiVersion: v1
kind: Secret
metadata: {name: ${name}, namespace: default}
data: {${entries}}
`;
}

export async function chat(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** The `data:` payloads of an SSE text, in order. */
export function sseData(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6));
}

/** The text a client reading an OpenAI chat-completions stream puts together: every `delta.content`, in order. */
export function streamedText(text: string): string {
  return sseData(text)
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d) as { choices?: { delta?: { content?: unknown } }[] })
    .flatMap((c) => c.choices ?? [])
    .map((c) => (typeof c.delta?.content === 'string' ? c.delta.content : ''))
    .join('');
}

/** The value of one sample of a counter in the runtime's registry, 0 when absent. */
export async function counter(runtime: ProxyRuntime, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await runtime.metrics.registry.getSingleMetric(name)?.get();
  const sample = metric?.values.find((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want));
  return sample?.value ?? 0;
}

/**
 * A fake vendor and a proxy serving `manifests(fake port)` for one suite: started before it, stopped after
 * it, the fake's records and mode reset before each test. Fields are set once the suite starts.
 */
export function useFakeAndProxy(
  vendor: 'openai' | 'anthropic',
  manifests: (port: number) => string,
  opts: Partial<RuntimeOptions> = {},
  tls?: { cert: string; key: string },
): { fake: FakeVendor; proxy: LlmProxy } {
  const ctx = {} as { fake: FakeVendor; proxy: LlmProxy };
  beforeAll(async () => {
    ctx.fake = await startFakeVendor(vendor, tls);
    ctx.proxy = await startLlmProxy(manifests(ctx.fake.port), opts);
  });
  afterAll(async () => {
    await ctx.proxy?.close();
    await ctx.fake?.close();
  });
  beforeEach(() => {
    ctx.fake.received.length = 0;
    ctx.fake.mode = { kind: 'ok' };
  });
  return ctx;
}

/**
 * A GwBackend `name` with one provider given as YAML flow mapping content (`openai: {}, host: h, port: 1`);
 * with `policies` (flow text) it is a one-group backend whose provider is also called `name`.
 */
export function aiBackend(name: string, provider: string, policies?: string): string {
  return `
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  ai:
${policies ? `    groups: [{providers: [{name: ${name}, ${provider}, policies: ${policies}}]}]` : `    provider: {${provider}}`}
`;
}

/** A GwPolicy `name` setting `backend.ai` (flow YAML) on GwBackend `backend`. */
export const aiPolicy = (name: string, backend: string, ai: string): string => `
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: ${backend}}]
  backend:
    ai: ${ai}
`;
