// Local mode against a real temporary folder: initial load, watched edits, removals, bad files.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LocalController } from '../../../src/controller/local/local-controller.js';

const GATEWAY = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: default, generation: 1}
spec:
  gatewayClassName: gw
  listeners: [{name: http, port: 8080, protocol: HTTP}]
---
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: default}
spec: {ports: [{port: 80}]}
`;
const ROUTE = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: echo, namespace: default, generation: 1}
spec:
  parentRefs: [{name: web}]
  rules: [{backendRefs: [{name: echo, port: 80}]}]
`;
const POLICY = (origin: string) => `apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: cors, namespace: default, generation: 2}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: echo}]
  traffic: {cors: {allowOrigins: ["${origin}"]}}
`;

const dirs: string[] = [];
let controller: LocalController | undefined;
afterEach(() => {
  controller?.stop();
  controller = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(clockTimes: string[] = []) {
  const manifests = mkdtempSync(join(tmpdir(), 'gw-manifests-'));
  const statusDir = mkdtempSync(join(tmpdir(), 'gw-status-'));
  dirs.push(manifests, statusDir);
  let tick = 0;
  const clock = () => new Date(clockTimes[Math.min(tick++, clockTimes.length - 1)] ?? '2026-01-01T00:00:00Z');
  const snapshots: number[] = [];
  controller = new LocalController({
    manifests,
    statusDir,
    clock,
    debounceMs: 20,
    translate: { controllerName: 'gw.dev/gateway-controller' },
    builtinClass: { name: 'gw', controllerName: 'gw.dev/gateway-controller' },
    logger: pino({ level: 'silent' }),
    onSnapshots: (s) => snapshots.push(s.size),
  });
  return { manifests, statusDir, controller, snapshots };
}

const readStatus = (statusDir: string, key: string) =>
  parse(readFileSync(join(statusDir, `${key}.yaml`), 'utf8')) as { status: Record<string, unknown>; source: string };

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('local mode', () => {
  it('loads a folder, builds the snapshot and writes one status file per object', () => {
    const { manifests, statusDir, controller: c, snapshots } = setup();
    writeFileSync(join(manifests, 'gateway.yaml'), GATEWAY);
    writeFileSync(join(manifests, 'route.yml'), ROUTE);
    const s = c.reload();
    expect(s.problems).toEqual([]);
    expect(s.gateways).toEqual(['default/web']);
    expect(snapshots).toEqual([1]);
    expect([...(c.snapshots.get('default/web')?.resources.map((r) => r.kind) ?? [])]).toEqual([
      'bind',
      'listener',
      'route',
      'backend',
    ]);
    expect(readStatus(statusDir, 'GatewayClass/gw').source).toBe('built-in');
    expect(readStatus(statusDir, 'HTTPRoute/default/echo').status).toMatchObject({
      parents: [
        {
          conditions: [
            { type: 'Accepted', status: 'True' },
            { type: 'ResolvedRefs', status: 'True' },
          ],
        },
      ],
    });
    expect(existsSync(join(statusDir, 'Service/default/echo.yaml'))).toBe(false);
  });

  it('re-translates on a watched edit, keeps unchanged condition times and removes status files of deleted objects', async () => {
    const {
      manifests,
      statusDir,
      controller: c,
    } = setup(['2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z']);
    writeFileSync(join(manifests, 'gateway.yaml'), GATEWAY);
    writeFileSync(join(manifests, 'route.yaml'), ROUTE);
    c.start();
    writeFileSync(join(manifests, 'policy.yaml'), POLICY('https://a.example'));
    await until(() => existsSync(join(statusDir, 'GwPolicy/default/cors.yaml')));
    const route = c.snapshots.get('default/web')?.resources.find((r) => 'route' in r);
    expect(route && 'route' in route ? route.route.effective?.fields?.['traffic.cors'] : undefined).toBe(
      '{"allowOrigins":["https://a.example"]}',
    );
    // The route's conditions did not change, so their transition time stays at the first translation.
    expect(JSON.stringify(readStatus(statusDir, 'HTTPRoute/default/echo').status)).toContain('2026-01-01T00:00:00Z');
    unlinkSync(join(manifests, 'route.yaml'));
    await until(() => !existsSync(join(statusDir, 'HTTPRoute/default/echo.yaml')));
    await until(() => JSON.stringify(readStatus(statusDir, 'GwPolicy/default/cors').status).includes('TargetNotFound'));
  });

  it('reports a broken file and a duplicate object without stopping', () => {
    const { manifests, controller: c } = setup();
    writeFileSync(join(manifests, 'a.yaml'), GATEWAY);
    writeFileSync(join(manifests, 'b.yaml'), `${GATEWAY}\n---\nkind: [oops\n`);
    writeFileSync(join(manifests, 'notes.txt'), 'ignored');
    const s = c.reload();
    expect(s.gateways).toEqual(['default/web']);
    const messages = s.problems.map((p) => `${p.source}: ${p.object ?? ''}: ${p.message}`);
    expect(messages.some((m) => m.startsWith('b.yaml: Gateway default/web: is also defined in a.yaml'))).toBe(true);
    expect(messages.some((m) => m.startsWith('b.yaml: : document 3 is not valid YAML'))).toBe(true);
  });
});
