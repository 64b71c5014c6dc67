import { writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCa, fileCaStore, loadOrCreateCa, memoryCaStore } from '../../src/xds/ca.js';
import type { XdsServer } from '../../src/xds/server.js';
import { createMemorySource, res, startProxy, startServer, waitFor, type FakeProxy } from './harness.js';
import { tempDirs } from '../support/temp-dir.js';

const tempDir = tempDirs();

// Node emits a deprecation once per process, so collect from the first connection of this file on.
const warnings: string[] = [];
process.on('warning', (w: Error & { code?: string }) => warnings.push(`${w.code ?? w.name}: ${w.message}`));

/** Fingerprint of the certificate a new TLS handshake gets, verified against the CA bundle. */
function servingFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2'], servername: 'localhost' }, () => {
      const fp = s.getPeerCertificate().fingerprint256;
      s.destroy();
      resolve(fp);
    });
    s.on('error', reject);
  });
}

async function caFileOf(server: XdsServer): Promise<string> {
  const dir = tempDir('gw-xds-ca-');
  const file = join(dir, 'ca.crt');
  await writeFile(file, server.caBundle!);
  return file;
}

describe('xds tls mode', () => {
  const source = createMemorySource();
  let server: XdsServer;
  let caFile: string;
  const proxies: FakeProxy[] = [];

  beforeAll(async () => {
    source.set('default/gw', { 'listener/a': res('a1') });
    ({ server } = await startServer(source, { mode: 'tls', tlsNames: ['gw-controller.gw-system.svc'] }));
    caFile = await caFileOf(server);
  });
  afterAll(async () => {
    for (const p of proxies) p.client.close();
    await server.close();
  });

  it('serves a client that trusts the CA bundle, dialling its IP without a TLS ServerName deprecation', async () => {
    const p = startProxy(server.port, { caFile });
    proxies.push(p);
    await waitFor('snapshot', () => p.client.ready);
    expect(p.state.get('listener/a')).toBe('a1');
    expect(warnings.filter((w) => w.startsWith('DEP0123'))).toEqual([]);
  });

  it('checks the IP against the certificate when dialling an IP it does not carry', async () => {
    // The serving certificate carries 127.0.0.1 but not 127.0.0.2 (both loopback here): a relay on
    // 127.0.0.2 reaches the same server, so only the identity check can refuse it.
    const relay = createServer((s) =>
      s
        .pipe(connect(server.port, '127.0.0.1'))
        .pipe(s)
        .on('error', () => s.destroy()),
    );
    await new Promise<void>((r) => relay.listen(0, '127.0.0.2', r));
    const port = (relay.address() as AddressInfo).port;
    const p = startProxy(server.port, { caFile, podName: 'other-ip', address: `127.0.0.2:${port}` });
    const status = await new Promise<{ code: number; details: string }>((r) =>
      p.client.once('disconnected', (s) => r(s)),
    );
    p.client.close();
    relay.close();
    expect(status.code).toBe(grpc.status.UNAVAILABLE);
    expect(status.details).toMatch(/127\.0\.0\.2|altnames|certificate/i);
  });

  it('verifies the certificate against a configured service name when dialling an address', async () => {
    const p = startProxy(server.port, { caFile, podName: 'by-name', serverName: 'gw-controller.gw-system.svc' });
    proxies.push(p);
    await waitFor('snapshot', () => p.client.ready);
    const wrong = startProxy(server.port, { caFile, podName: 'wrong-name', serverName: 'other.example' });
    const status = await new Promise<{ code: number }>((r) => wrong.client.once('disconnected', (s) => r(s)));
    wrong.client.close();
    expect(status.code).toBe(grpc.status.UNAVAILABLE);
    expect(wrong.client.ready).toBe(false);
  });

  it('refuses a plaintext client', async () => {
    const p = startProxy(server.port, { podName: 'plain' });
    const ended = new Promise<void>((r) => p.client.once('disconnected', () => r()));
    await ended;
    p.client.close();
    expect(p.client.ready).toBe(false);
  });

  it('rotates the serving certificate without dropping connected proxies', async () => {
    const connected = [0, 1, 2].map((i) => startProxy(server.port, { caFile, podName: `rot-${i}` }));
    proxies.push(...connected);
    await waitFor('all ready', () => connected.every((p) => p.client.ready));
    let drops = 0;
    for (const p of connected) p.client.on('disconnected', () => drops++);
    const before = await servingFingerprint(server.port, server.caBundle!);

    await server.rotateServingCert();

    const after = await servingFingerprint(server.port, server.caBundle!);
    expect(after).not.toBe(before);
    source.set('default/gw', { 'listener/a': res('a2') });
    await waitFor('change on the same streams', () => connected.every((p) => p.state.get('listener/a') === 'a2'));
    expect(drops).toBe(0);
    const fresh = startProxy(server.port, { caFile, podName: 'after-rotation' });
    proxies.push(fresh);
    await waitFor('new client verifies the new certificate', () => fresh.client.ready);
  });
});

describe('xds either mode', () => {
  it('accepts plaintext and TLS clients on one port', async () => {
    const source = createMemorySource();
    source.set('default/gw', { 'listener/a': res('a1') });
    const { server } = await startServer(source, { mode: 'either' });
    const caFile = await caFileOf(server);
    const plain = startProxy(server.port, { podName: 'plain' });
    const secure = startProxy(server.port, { podName: 'secure', caFile });
    try {
      await waitFor('both ready', () => plain.client.ready && secure.client.ready);
      expect(
        server
          .proxies()
          .map((p) => p.pod)
          .sort(),
      ).toEqual(['plain', 'secure']);
      source.set('default/gw', { 'listener/a': res('a2') });
      await waitFor(
        'both updated',
        () => plain.state.get('listener/a') === 'a2' && secure.state.get('listener/a') === 'a2',
      );
    } finally {
      plain.client.close();
      secure.client.close();
      await server.close();
    }
  });
});

describe('xds CA store', () => {
  it('keeps the CA across restarts, so proxies holding the old bundle reconnect', async () => {
    const dir = tempDir('gw-xds-store-');
    const caStore = fileCaStore(join(dir, 'ca.json'));
    const source = createMemorySource();
    source.set('default/gw', { 'listener/a': res('a1') });
    let { server } = await startServer(source, { mode: 'tls', caStore });
    const port = server.port;
    const caFile = await caFileOf(server);
    const bundle = server.caBundle;
    const p = startProxy(port, { caFile });
    try {
      await waitFor('snapshot', () => p.client.ready);
      await server.close();
      source.set('default/gw', { 'listener/a': res('a2') });
      ({ server } = await startServer(source, { mode: 'tls', caStore, port }));
      expect(server.caBundle).toBe(bundle);
      await waitFor('resync over TLS', () => p.state.get('listener/a') === 'a2');
    } finally {
      p.client.close();
      await server.close();
    }
  });

  it('returns the CA another replica stored first', async () => {
    const [first, second] = await Promise.all([createCa(), createCa()]);
    const memory = memoryCaStore();
    expect((await memory.put(first)).caCert).toBe(first.caCert);
    expect((await memory.put(second)).caCert).toBe(first.caCert);

    const path = join(tempDir('gw-xds-race-'), 'ca.json');
    const stored = await Promise.all([fileCaStore(path).put(first), fileCaStore(path).put(second)]);
    expect(stored[0].caCert).toBe(stored[1].caCert);
    expect((await loadOrCreateCa(fileCaStore(path))).caCert).toBe(stored[0].caCert);
  });

  it('names the file when a stored CA is unreadable', async () => {
    const path = join(tempDir('gw-xds-bad-'), 'ca.json');
    await writeFile(path, '{not json');
    await expect(fileCaStore(path).get()).rejects.toThrow(
      `${path}: must hold a JSON object with string fields caCert and caKey`,
    );
  });
});
