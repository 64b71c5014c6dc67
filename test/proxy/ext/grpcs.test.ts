// grpcs:// URLs of traffic.extAuth (gRPC) and traffic.extProc: TLS to the server, verified against the
// proxy's default roots (no CA configured on the policy). The real servers (OPA's Rego engine, test/opa; the
// ext_proc server, test/extproc) serve TLS with a leaf of a test CA. The test CA stands in for the system roots
// through grpc-js's GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, read when grpc-js loads: it is set before anything that
// loads grpc-js (the runtime, the forwarding harness) is imported; vitest runs each test file in its own process. A server whose certificate another CA signed is
// refused, so the check is real.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { issueLeaf, testCa } from '../../support/test-certs.js';
import { OpaServer } from '../auth/opa-server.js';
import type { RawResponse, Upstream } from '../http-forward-harness.js';
import { trafficManifests } from '../traffic-manifests.js';
import { translatedIr } from '../translated-ir.js';
import { ExtProcServer } from './ext-proc-server.js';

describe('grpcs:// to the ext_authz and ext_proc servers', () => {
  let opa: OpaServer;
  let strangerOpa: OpaServer;
  let processor: ExtProcServer;
  let strangerProcessor: ExtProcServer;
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  let hits = 0;
  let send: (p: string, headers?: Record<string, string>) => Promise<RawResponse>;

  beforeAll(async () => {
    const [ca, stranger] = await Promise.all([testCa(), testCa('another CA')]);
    const roots = path.join(mkdtempSync(path.join(tmpdir(), 'gw-grpcs-')), 'roots.pem');
    writeFileSync(roots, ca.caCert);
    process.env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH = roots;
    const leaf = issueLeaf(ca, ['127.0.0.1'], 'server');
    const strangerLeaf = issueLeaf(stranger, ['127.0.0.1'], 'server');
    [opa, strangerOpa, processor, strangerProcessor] = await Promise.all([
      OpaServer.start(undefined, leaf),
      OpaServer.start(undefined, strangerLeaf),
      ExtProcServer.start([], leaf),
      ExtProcServer.start([], strangerLeaf),
    ]);
    const { startEchoUpstream } = await import('../auth/ext-auth-server.js');
    const { rawRequest } = await import('../http-forward-harness.js');
    send = (p, headers = {}) => rawRequest(`${base}${p}`, { headers });
    upstream = await startEchoUpstream(() => hits++);
    const authz = (port: number) => `{extAuth: {url: "grpcs://127.0.0.1:${port}", grpc: {}}}`;
    const proc = (url: string) => `{extProc: {url: "${url}", processingOptions: {timeout: 5s}}}`;
    const manifests = trafficManifests(upstream.port, [
      { name: 'public', traffic: authz(opa.port) },
      { name: 'shop', traffic: authz(opa.port) },
      { name: 'stranger', traffic: authz(strangerOpa.port) },
      { name: 'processed', traffic: proc(processor.url) },
      { name: 'strangerproc', traffic: proc(strangerProcessor.url) },
    ]);
    const { ProxyRuntime } = await import('../../../src/proxy/runtime.js');
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await Promise.all([opa?.stop(), strangerOpa?.stop(), processor?.close(), strangerProcessor?.close()]);
  });

  it("ext_authz over grpcs://: OPA's allow and its denial both come over TLS", async () => {
    expect(processor.url).toMatch(/^grpcs:\/\//);
    const allowed = await send('/public/x');
    expect(allowed.status).toBe(200);
    expect((JSON.parse(allowed.body) as { headers: Record<string, string> }).headers['x-opa-user']).toBe('anonymous');
    const denied = await send('/shop/x');
    expect(denied.status).toBe(401);
    expect(JSON.parse(denied.body)).toEqual({ why: 'who are you?' });
  });

  it('ext_proc over grpcs://: the processor mutates the request over TLS', async () => {
    const res = await send('/processed/x', { 'x-extproc-do': 'set-header', 'x-test': 'tls-1' });
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as { headers: Record<string, string> }).headers['x-extproc-added']).toBe('yes');
    expect(processor.stream('tls-1').length).toBeGreaterThan(0);
  });

  it('a server whose certificate the roots do not vouch for is never trusted: both fail closed', async () => {
    const before = hits;
    const authz = await send('/stranger/x');
    expect(authz.status).toBe(403);
    const proc = await send('/strangerproc/x', { 'x-extproc-do': 'set-header' });
    expect(proc.status).toBe(500);
    expect(JSON.parse(proc.body)).toMatchObject({ error: 'processing_failed' });
    expect(hits).toBe(before);
  });
});
