// Bench proxy: the compiled proxy runtime in its own process serving two LLM routes to the fake upstream
// (argv[2], its port): `/plain` (an ai backend, no guards) and `/guarded` (the same with regex prompt
// guards: the Ssn and CreditCard builtins masked in requests, Email in responses). The IR comes from the
// real translator. Prints its base URL; exits when its stdin closes.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { SnapshotInput } from '../../src/ir/types.js';
import type { ProxyRuntime as Runtime } from '../../src/proxy/runtime.js';
import { snapshots, translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/store.js';

const port = Number(process.argv[2]);
// The compiled runtime, as `gw proxy` runs it (tsx's transform would count against the hot path).
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mod = (await import(pathToFileURL(path.join(root, 'dist/proxy/runtime.js')).href)) as { ProxyRuntime: typeof Runtime };

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
const manifests = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gw}
spec: {controllerName: gw.dev/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: default}
spec:
  gatewayClassName: gw
  listeners: [{name: http, port: 8080, protocol: HTTP}]
${backend('llm')}${backend('llm-guarded')}---
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

const store = createStore();
for (const { kind, obj } of parseManifests(manifests, 'bench.yaml').objects) putObject(store, kind, obj, 'bench.yaml');
const snapshot = snapshots(translateAll(store, { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' })).get('default/web');
if (!snapshot) throw new Error('the bench manifests gave no snapshot for default/web');
const ir = normalizeSnapshot(snapshot as unknown as SnapshotInput);
for (const r of ir.resources) if (r.bind) Object.assign(r.bind, { port: 0, address: '127.0.0.1' });
const runtime = new mod.ProxyRuntime({ log: pino({ level: 'warn' }) });
await runtime.apply(ir);
console.log(`http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`);
const stop = (): void => void runtime.close().then(() => process.exit(0));
process.stdin.on('end', stop).resume();
// Exit normally on SIGTERM so `--cpu-prof` can write its profile.
process.once('SIGTERM', stop);
