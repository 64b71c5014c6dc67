// GwPolicy `frontend.http.http1HeaderCase`, through a real listener to a raw TCP backend, both hops read as
// bytes: with Preserve the backend sees the client's header-name case and the client the backend's; without
// it (unset, or Lowercase) both see lower case, which is what would show if the field were skipped.
import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests, frontendPolicy } from './traffic-manifests.js';

const policy = (headerCase: string): string => frontendPolicy(`{http: {http1HeaderCase: ${headerCase}}}`, 'conn');

/** The request heads the backend received, as bytes; it answers with mixed-case header names. */
function rawBackend(heads: string[]): Server {
  return createServer((socket) => {
    let buffer = '';
    socket.on('data', (c: Buffer) => {
      buffer += c.toString('latin1');
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      heads.push(buffer.slice(0, end));
      buffer = buffer.slice(end + 4);
      socket.write('HTTP/1.1 200 OK\r\nX-Backend-Said: Hi\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok');
    });
    socket.on('error', () => undefined);
  });
}

/** One raw HTTP/1.1 request; resolves the response head as bytes. */
function rawGet(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (c: Buffer) => {
      got += c.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      if (end >= 0) {
        resolve(got.slice(0, end));
        s.destroy();
      }
    });
    s.on('error', reject);
    s.write('GET /app/x HTTP/1.1\r\nHost: x\r\nX-Client-Said: Hello\r\n\r\n');
  });
}

describe('frontend.http.http1HeaderCase', () => {
  const heads: string[] = [];
  let backend: Server;
  let backendPort: number;
  const runtimes: ProxyRuntime[] = [];

  const serve = async (headerCase?: string): Promise<number> => {
    const runtime = new ProxyRuntime({ log });
    runtimes.push(runtime);
    await runtime.apply(
      translatedIr(
        trafficManifests(backendPort, [{ name: 'app', traffic: '{}' }], headerCase ? policy(headerCase) : ''),
      ),
    );
    return Object.values(runtime.boundPorts())[0] as number;
  };

  beforeAll(async () => {
    backend = rawBackend(heads);
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    backendPort = (backend.address() as { port: number }).port;
  });
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.close()));
    await new Promise((r) => backend.close(r));
  });

  it('Preserve: the backend sees the client’s case and the client the backend’s', async () => {
    const port = await serve('Preserve');
    const head = await rawGet(port);
    expect(head).toMatch(/^HTTP\/1.1 200/);
    expect(head).toContain('\r\nX-Backend-Said: Hi');
    expect(heads.at(-1)).toContain('\r\nX-Client-Said: Hello');
  });

  it.each([['Lowercase'], [undefined]])('%s: both hops get lower-case names', async (headerCase) => {
    const port = await serve(headerCase);
    const head = await rawGet(port);
    expect(head).toMatch(/^HTTP\/1.1 200/);
    expect(head).toContain('\r\nx-backend-said: Hi');
    expect(heads.at(-1)).toContain('\r\nx-client-said: Hello');
  });
});
