// Bench proxy: the compiled proxy runtime in its own process serving two LLM routes to the fake upstream
// (argv[2], its port): `/plain` (an ai backend, no guards) and `/guarded` (the same with regex prompt
// guards: the Ssn and CreditCard builtins masked in requests, Email in responses). The IR comes from the
// real translator. argv[3], when given, is another checkout whose built runtime to serve (the A/B baseline).
// Prints its base URL; exits when its stdin closes.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import type { ProxyRuntime as Runtime } from '../../src/proxy/runtime.js';
import { GATEWAY_WEB, translatedIr } from '../../test/proxy/translated-ir.js';
import { startAllocationProfile } from '../proxy/alloc-profile.js';

const port = Number(process.argv[2]);
// The compiled runtime, as `gw proxy` runs it (tsx's transform would count against the hot path).
const root = process.argv[3] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mod = (await import(pathToFileURL(path.join(root, 'dist/proxy/runtime.js')).href)) as {
  ProxyRuntime: typeof Runtime;
};

const route = (name: string, backend: string) => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /${name}}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: ${backend}}]
`;
const backend = (name: string) => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  ai: {provider: {openai: {}, host: 127.0.0.1, port: ${port}}}
`;
const manifests = `${GATEWAY_WEB}${backend('llm')}${backend('llm-guarded')}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: guards, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: llm-guarded}]
  backend:
    ai:
      promptGuard:
        request: [{regex: {builtins: [Ssn, CreditCard], action: Mask}}]
        response: [{regex: {builtins: [Email], action: Mask}}]
${route('plain', 'llm')}${route('guarded', 'llm-guarded')}`;

const ir = translatedIr(manifests);
const runtime = new mod.ProxyRuntime({ log: pino({ level: 'warn' }) });
await runtime.apply(ir);
console.log(`http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`);
// BENCH_HEAPPROF=1: allocation sites of this checkout's proxy (not the baseline's), printed on exit.
const stopProfile = process.env.BENCH_HEAPPROF && !process.argv[3] ? await startAllocationProfile() : undefined;
const stop = (): void =>
  void (stopProfile ?? (() => Promise.resolve()))()
    .then(() => runtime.close())
    .then(() => process.exit(0));
process.stdin.on('end', stop).resume();
// Exit normally on SIGTERM so `--cpu-prof` can write its profile.
process.once('SIGTERM', stop);
