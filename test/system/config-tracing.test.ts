// `gw controller --otlp-traces-url`: a manifest edit in local mode, pushed over xDS to two `gw proxy`
// processes, is one trace in a real OpenTelemetry Collector (built by `make otelcol`): the reload's
// `translate` span, its `publish default/web` span, and an `apply <pod>` span per proxy that ACKed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseControllerFlags } from '../../src/cli/controller.js';
import { startLocalServer, type LocalServer } from '../../src/controller/local/serve-local.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { attrs, Collector, type OtlpSpan } from '../proxy/otel-collector.js';
import {
  freePort,
  isReady,
  log,
  startProxyProcess,
  waitFor,
  writeManifests,
  writeRoute,
  type ProxyProcess,
} from './harness.js';

describe('controller tracing: a config change reaching every proxy is one trace', () => {
  let dir: string;
  let collector: Collector;
  let fixture: HttpFixture;
  let controller: LocalServer | undefined;
  const proxies: ProxyProcess[] = [];

  beforeAll(async () => {
    collector = await Collector.start();
    dir = mkdtempSync(join(tmpdir(), 'gw-config-trace-'));
    const manifests = join(dir, 'manifests');
    fixture = await startHttpFixture({ id: 'trace' });
    const [xdsPort, listenerPort] = [await freePort(), await freePort()];
    writeManifests(manifests, { listenerPort, targetUrl: new URL(fixture.url), routePath: '/mcp' });
    const cfg = parseControllerFlags([
      `--manifests=${manifests}`,
      `--xds-port=${xdsPort}`,
      '--health-port=0',
      '--metrics-port=0',
      `--otlp-traces-url=${collector.url}`,
    ]);
    controller = await startLocalServer(cfg, log, { host: '127.0.0.1', debounceMs: 20 });
    for (const [i, listenAddress] of ['127.0.0.1', '127.0.0.2'].entries())
      proxies.push(
        startProxyProcess({
          xdsPort,
          gateway: 'default/web',
          pod: `proxy-${i}`,
          listenAddress,
          readyPort: await freePort(),
        }),
      );
    for (const p of proxies) await waitFor(`proxy ready at ${p.readyUrl}`, () => isReady(p.readyUrl), 60_000);
  });

  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.stop()));
    await controller?.stop();
    await fixture?.close();
    await collector?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('traces the reload, the publish and each proxy applying it', async () => {
    writeRoute(join(dir, 'manifests'), '/moved');
    const children = (parent: OtlpSpan | undefined): OtlpSpan[] =>
      collector.spans().filter((s) => parent && s.parentSpanId === parent.spanId);
    const publish = await collector.waitFor(
      () =>
        collector
          .spans()
          .find((s) => s.name === 'publish default/web' && attrs(s.attributes)['gw.proxies.applied'] === 2),
      'a publish span both proxies applied',
    );
    const translate = collector.spans().find((s) => s.spanId === publish.parentSpanId);
    expect(translate?.name).toBe('translate');
    expect(translate?.traceId).toBe(publish.traceId);
    expect(attrs(publish.attributes)).toMatchObject({ 'gw.gateway': 'default/web', 'gw.proxies.waiting': 0 });
    const applied = await collector.waitFor(() => {
      const c = children(publish);
      return c.length === 2 ? c : undefined;
    }, 'the apply spans');
    expect(applied.map((s) => s.name).sort()).toEqual(['apply proxy-0', 'apply proxy-1']);
    for (const s of applied) {
      expect(s.traceId).toBe(publish.traceId);
      expect(attrs(s.attributes)['gw.xds.version']).toMatch(/.+/);
    }
  });
});
