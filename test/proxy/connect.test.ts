// A downstream CONNECT gets the seed's 405 (no `connect` policy is served), with the proxy's error body,
// instead of a connection closed with no reply; the listener keeps serving.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (c: Buffer) => (out += c.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('CONNECT', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let port: number;

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => res.writeHead(200).end('ok'));
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }])));
    port = Object.values(runtime.boundPorts())[0] as number;
  });
  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('answers 405 with the error body and closes, and the listener keeps serving', async () => {
    const reply = await raw(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: 'method_not_allowed' });
    expect((await fetch(`http://127.0.0.1:${port}/app/x`)).status).toBe(200);
  });
});
