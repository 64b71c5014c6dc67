import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { controllerUi, parseControllerFlags } from '../../src/cli/controller.js';
import { startLocalServer } from '../../src/controller/local/serve-local.js';
import { fleetApi, fleetView } from '../../src/controller/fleet.js';
import { createControllerSource } from '../../src/controller/snapshot-source.js';
import type { BuiltSnapshot } from '../../src/translate/built-ir.js';
import type { ConnectedProxy } from '../../src/xds/server.js';

const KEY_HASH = 'a'.repeat(64);
const snapshot: BuiltSnapshot = {
  version: '1',
  resources: [
    { kind: 'bind', bind: { name: 'default/web/8080', port: 8080, address: '' } },
    {
      kind: 'listener',
      listener: {
        name: 'default/web/http',
        bind: 'default/web/8080',
        hostnames: [],
        protocol: 'HTTP',
        refusals: [
          { field: 'frontend.tracing', source: 'GwPolicy default/front', reason: 'not supported', security: false },
        ],
      },
    },
    {
      kind: 'route',
      route: {
        name: 'HTTPRoute/default/mcp/0',
        listeners: ['default/web/http'],
        policy: {
          apiKeyAuthentication: { entries: [{ keySha256: KEY_HASH, metadataJson: '{"group":"ops"}' }] },
        },
        refusals: [
          {
            field: 'traffic.authorization',
            source: 'GwPolicy default/mcp-access',
            reason: 'the expression does not compile',
            security: true,
          },
        ],
        unservedBackends: [{ reason: 'BackendNotFound', message: 'GwBackend default/gone does not exist' }],
      },
    },
  ],
};

const proxy = (over: Partial<ConnectedProxy> = {}): ConnectedProxy => ({
  gateway: 'default/web',
  pod: 'web-0',
  peer: '10.0.0.7:41000',
  rejected: [],
  refusals: [],
  since: '2026-11-29T10:00:00.000Z',
  applied: 'v1',
  current: 'v1',
  lastReply: { ack: 'ACK', at: '2026-11-29T10:00:01.000Z', version: 'v1', errors: [] },
  ...over,
});

describe('the controller fleet view', () => {
  it("lists each gateway's translation refusals with the resource they belong to, and its proxies", () => {
    const source = createControllerSource();
    source.publish('default/web', snapshot);
    const [gw] = fleetView(source.built(), [proxy(), proxy({ pod: 'web-1', applied: '', lastReply: null })]);
    expect(gw).toMatchObject({ name: 'default/web', version: 'v1', resources: 3 });
    expect(gw?.refusals).toEqual([
      {
        resource: 'listener/default/web/http',
        field: 'frontend.tracing',
        source: 'GwPolicy default/front',
        reason: 'not supported',
        security: false,
      },
      {
        resource: 'route/HTTPRoute/default/mcp/0',
        field: 'traffic.authorization',
        source: 'GwPolicy default/mcp-access',
        reason: 'the expression does not compile',
        security: true,
      },
    ]);
    expect(gw?.unserved).toEqual([
      {
        resource: 'route/HTTPRoute/default/mcp/0',
        reason: 'BackendNotFound',
        message: 'GwBackend default/gone does not exist',
      },
    ]);
    expect(gw?.proxies.map((p) => [p.pod, p.applied, p.lastReply?.ack ?? null])).toEqual([
      ['web-0', 'v1', 'ACK'],
      ['web-1', '', null],
    ]);
  });

  it('shows a gateway a proxy asks for before the controller has a snapshot of it, and the NACK text', () => {
    const nack = { ack: 'NACK' as const, at: 'x', version: 'v2', errors: [{ name: 'route/r', message: 'bad port' }] };
    const view = fleetView(new Map(), [proxy({ gateway: 'other/gw', lastReply: nack })]);
    expect(view.map((g) => g.name)).toEqual(['other/gw']);
    expect(view[0]?.proxies[0]?.lastReply).toEqual(nack);
  });

  it("never hands the browser a policy's values: no key hash, no metadata", () => {
    const source = createControllerSource();
    source.publish('default/web', snapshot);
    const api = fleetApi(source, () => [proxy()], { mode: 'local', gwVersion: '0.1.0' });
    const body = JSON.stringify([api.overview?.(), api.fleet?.()]);
    expect(body).toContain('traffic.authorization');
    expect(body).not.toContain(KEY_HASH);
    expect(body).not.toContain('group');
    expect(api.overview?.()).toEqual({ role: 'controller', mode: 'local', gwVersion: '0.1.0' });
  });
});

describe("the controller's admin address", () => {
  it('with --admin-token-file asks for the bearer token, answers its own origin only, sets no cookie, and is read-only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-fleet-'));
    const token = 'fleet-admin-token-6c1f0a9e';
    writeFileSync(join(dir, 'token'), `${token}\n`);
    const cfg = parseControllerFlags([
      '--manifests',
      dir,
      '--xds-port',
      '0',
      '--health-port',
      '0',
      '--metrics-port',
      '0',
      '--admin-address',
      '127.0.0.1:0',
      '--admin-token-file',
      join(dir, 'token'),
    ]);
    const log = pino({ level: 'silent' });
    const server = await startLocalServer(cfg, log, { ui: await controllerUi(cfg.admin!, log) });
    try {
      const url = `http://127.0.0.1:${server.uiPort}/ui/api/v1/fleet`;
      expect((await fetch(url)).status).toBe(401);
      const ok = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('set-cookie')).toBeNull();
      expect(await ok.json()).toEqual({ gateways: [] });
      const foreign = await fetch(url, { headers: { authorization: `Bearer ${token}`, origin: 'http://evil.test' } });
      expect(foreign.status).toBe(403);
      const post = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect(post.status).toBe(405);
      expect(JSON.stringify(await (await fetch(url)).json())).not.toContain(token);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
