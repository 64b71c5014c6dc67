// Route timeouts on MCP routes: a JSON-RPC call to a target is the backend request, bounded by the route's
// `timeouts` (GwPolicy traffic.timeouts, or the HTTPRoute rule's own). The real runtime serves manifests
// through the real translator in front of an SDK fixture server whose `slow` tool waits between steps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { log } from './http-forward-harness.js';
import { connectClient, textOf } from './harness.js';
import { translatedIr } from './translated-ir.js';
import { mcpBackendManifest, trafficManifests } from './traffic-manifests.js';

describe('MCP calls bounded by route timeouts', () => {
  let fixture: HttpFixture;
  let runtime: ProxyRuntime;
  let base = '';

  // Timeouts of 2 s, not less: the session's own requests (initialize, the GET stream) pass the same route
  // timeouts, and a loaded machine can take a second to answer them. The slow tool takes 8 s, four times that.
  beforeAll(async () => {
    fixture = await startHttpFixture({ id: 'slow' });
    const port = Number(new URL(fixture.url).port);
    const tools = [
      mcpBackendManifest('tools', port),
      mcpBackendManifest('per-target', port, { target: '{http: {requestTimeout: 2s}}' }),
      mcpBackendManifest('per-edge', port, { backend: '{http: {requestTimeout: 2s}}' }),
    ].join('---\n');
    runtime = new ProxyRuntime({ log });
    await runtime.apply(
      translatedIr(
        trafficManifests(
          1,
          [
            { name: 'policy', backend: 'tools', traffic: '{timeouts: {request: 2s}}' },
            {
              name: 'rule',
              backend: 'tools',
              traffic: '{timeouts: {request: 30s}}',
              rule: 'timeouts: {backendRequest: 2s, request: 4s}',
            },
            { name: 'none', backend: 'tools', traffic: '{cors: {allowOrigins: ["*"]}}' },
            { name: 'target', backend: 'per-target', traffic: '{cors: {allowOrigins: ["*"]}}' },
            { name: 'edge', backend: 'per-edge', traffic: '{cors: {allowOrigins: ["*"]}}' },
            { name: 'routewins', backend: 'per-target', traffic: '{timeouts: {request: 30s}}' },
          ],
          tools,
        ),
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await fixture?.close();
  });

  async function slowCall(
    path: string,
    ms: number,
    steps = 2,
  ): Promise<{ text?: string; error?: string; tookMs: number }> {
    const { client } = await connectClient(`${base}/${path}`);
    const started = Date.now();
    try {
      const r = await client.callTool({ name: 'slow', arguments: { steps, ms } });
      return { text: textOf(r), tookMs: Date.now() - started };
    } catch (e) {
      return { error: (e as Error).message, tookMs: Date.now() - started };
    } finally {
      await client.close();
    }
  }

  it("ends a target call that outlasts the policy's request timeout with a timeout error, well before the tool would finish", async () => {
    const r = await slowCall('policy', 2_000, 4);
    expect(r.error).toMatch(/timed out/i);
    expect(r.tookMs).toBeLessThan(6_000);
  });

  it("uses the HTTPRoute rule's own timeouts over the policy's (backendRequest bounds the call)", async () => {
    const r = await slowCall('rule', 2_000, 4);
    expect(r.error).toMatch(/timed out/i);
    expect(r.tookMs).toBeLessThan(6_000);
  });

  it("ends a call that outlasts the target's own policies.http.requestTimeout, or the backend's, with a timeout error", async () => {
    for (const path of ['target', 'edge']) {
      const r = await slowCall(path, 2_000, 4);
      expect(r.error, path).toMatch(/timed out/i);
      expect(r.tookMs, path).toBeLessThan(6_000);
    }
    expect((await slowCall('target', 50)).text).toBe('done 2');
  });

  it("lets the route's timeouts win over the backend's requestTimeout", async () => {
    expect((await slowCall('routewins', 1_500)).text).toBe('done 2');
  });

  it('lets a call that fits the timeout, or a route without one, finish', async () => {
    expect((await slowCall('policy', 50)).text).toBe('done 2');
    expect((await slowCall('none', 600)).text).toBe('done 2');
  });
});
