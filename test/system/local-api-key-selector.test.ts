// Local mode (a real folder, watched) feeding a real proxy runtime on a loopback listener: API keys chosen
// by labels (traffic.apiKeyAuthentication.secretSelector) follow the folder. A labelled Secret written
// later starts working without a restart, relabelling it stops it, and a hashed key from a labelled
// ConfigMap works as well.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalController } from '../../src/controller/local/local-controller.js';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { SnapshotInput } from '../../src/ir/types.js';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { rawRequest, startUpstream, type Upstream } from '../proxy/http-forward-harness.js';
import { freePort } from '../proxy/ports.js';
import { gatewayWithStaticBackend } from '../proxy/translated-ir.js';

const key = 'sk-labelled-6a1f0e9d';
const hashedKey = 'sk-hashed-3c2b1a00';
const log = pino({ level: 'silent' });

const secret = (labels: string) => `apiVersion: v1
kind: Secret
metadata: {name: late-keys, namespace: default, labels: {${labels}}}
stringData: {client: ${key}}
`;

describe('API keys chosen by labels in local mode', () => {
  let dir: string;
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let controller: LocalController;
  let port: number;
  let applying = Promise.resolve();
  const status = async (path: string, k: string) =>
    (await rawRequest(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${k}` } })).status;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-keys-'));
    upstream = await startUpstream((_req, res) => res.writeHead(200).end('ok'));
    port = await freePort();
    runtime = new ProxyRuntime({ log, security: createRouteSecurity() });
    const policy = (name: string, source: string) => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules: [{matches: [{path: {type: PathPrefix, value: /${name}}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: up}]}]
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ${name}}]
  traffic: {apiKeyAuthentication: {${source}}}
`;
    writeFileSync(
      join(dir, 'gateway.yaml'),
      gatewayWithStaticBackend(upstream.port, 'up').replace('port: 8080', `port: ${port}`) +
        policy('secrets', 'secretSelector: {matchLabels: {app: keys}}') +
        policy('hashes', 'configMapSelector: {matchLabels: {app: hashed}}'),
    );
    const entry = JSON.stringify({ keyHash: `sha256:${createHash('sha256').update(hashedKey).digest('hex')}` });
    writeFileSync(
      join(dir, 'configmap.yaml'),
      `apiVersion: v1
kind: ConfigMap
metadata: {name: hashes, namespace: default, labels: {app: hashed}}
data: {client: '${entry}'}
`,
    );
    controller = new LocalController({
      manifests: dir,
      translate: { controllerName: 'gw.dev/gateway-controller' },
      logger: log,
      debounceMs: 20,
      onSnapshots: (snaps) => {
        const snap = snaps.get('default/web');
        if (!snap) return;
        const ir = normalizeSnapshot(snap as unknown as SnapshotInput);
        for (const r of ir.resources) if (r.bind) Object.assign(r.bind, { address: '127.0.0.1' });
        applying = applying.then(() => runtime.apply(ir));
      },
    });
    controller.start();
  });

  afterAll(async () => {
    controller?.stop();
    await applying;
    await runtime?.close();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the route while no Secret carries the labels (503), then accepts a key written later', async () => {
    await expect.poll(() => status('/secrets', key).catch(() => 0), { timeout: 15_000 }).toBe(503);
    writeFileSync(join(dir, 'secret.yaml'), secret('app: keys'));
    await expect.poll(() => status('/secrets', key), { timeout: 15_000 }).toBe(200);
    expect(await status('/secrets', `${key}x`)).toBe(401);
  });

  it('stops accepting the key once its Secret loses the labels', async () => {
    writeFileSync(join(dir, 'secret.yaml'), secret('app: keys, other: x'));
    await expect.poll(() => status('/secrets', key), { timeout: 15_000 }).toBe(200);
    writeFileSync(join(dir, 'secret.yaml'), secret('app: retired'));
    await expect.poll(() => status('/secrets', key), { timeout: 15_000 }).toBe(503);
  });

  it('accepts a key whose hash a labelled ConfigMap holds', async () => {
    expect(await status('/hashes', hashedKey)).toBe(200);
    expect(await status('/hashes', key)).toBe(401);
  });
});
