// A dynamic forward proxy is safe by default (issue 31): destinations that are not public unicast (loopback,
// link-local, unspecified, private, NAT64, documentation…) or this machine's own are refused with 403 however the Host
// spells them, unless the GwBackend's `allowedDestinations` lists them; the Host is normalised before CEL
// rules read it; an open forward proxy is warned about when the configuration is applied.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { rawRequest, startUpstream, type RawResponse, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

/** `dfp` refuses internal destinations; `dfp-local` allows loopback (the test upstream lives there). */
const backends = `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: dfp, namespace: default}
spec: {dynamicForwardProxy: {}}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: dfp-local, namespace: default}
spec: {dynamicForwardProxy: {allowedDestinations: [127.0.0.0/8, "::1/128"]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: open, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /open}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: dfp}]}
`;

let upstream: Upstream;
let runtime: ProxyRuntime;
let proxyPort: number;
const logLines: string[] = [];
const reached: string[] = [];

const get = (path: string, host: string): Promise<RawResponse> =>
  rawRequest(`http://127.0.0.1:${proxyPort}${path}`, { headers: { host } });

beforeAll(async () => {
  upstream = await startUpstream((req: IncomingMessage, res: ServerResponse) => {
    reached.push(`${req.url ?? ''} host=${req.headers.host ?? ''}`);
    res.writeHead(200).end('upstream');
  });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  runtime = new ProxyRuntime({ log: pino({ level: 'warn' }, sink), security: createRouteSecurity() });
  await runtime.apply(
    translatedIr(
      trafficManifests(
        upstream.port,
        [
          // Guarded, so not an open proxy: the closed default is what refuses.
          { name: 'closed', backend: 'dfp', traffic: `{authorization: {policy: {matchExpressions: ['true']}}}` },
          {
            name: 'local',
            backend: 'dfp-local',
            traffic: `{authorization: {policy: {matchExpressions: ['request.headers["host"] != "127.0.0.1:${upstream.port}"']}}}`,
          },
          { name: 'allowed', backend: 'dfp-local', traffic: `{authorization: {policy: {matchExpressions: ['true']}}}` },
          {
            name: 'byhost',
            backend: 'dfp-local',
            traffic: `{authorization: {policy: {matchExpressions: ['request.host == "127.0.0.1:${upstream.port}"']}}}`,
          },
        ],
        backends,
      ),
    ),
  );
  proxyPort = Object.values(runtime.boundPorts())[0] ?? 0;
});
beforeEach(() => {
  reached.length = 0;
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
});

describe('dynamic forward proxy destinations refused by default', () => {
  const port = (): number => upstream.port;
  it.each([
    ['loopback', () => `127.0.0.1:${port()}`, 'a loopback address'],
    ['short IPv4 127.1', () => `127.1:${port()}`, 'a loopback address'],
    ['decimal IPv4', () => `2130706433:${port()}`, 'a loopback address'],
    ['hex IPv4', () => `0x7f000001:${port()}`, 'a loopback address'],
    ['octal IPv4', () => `0177.0.0.1:${port()}`, 'a loopback address'],
    ['localhost', () => `localhost:${port()}`, 'a loopback address'],
    ['localhost with a trailing dot', () => `localhost.:${port()}`, 'a loopback address'],
    ['IPv6 loopback', () => `[::1]:${port()}`, 'a loopback address'],
    ['IPv4-mapped IPv6 loopback', () => `[::ffff:127.0.0.1]:${port()}`, 'a loopback address'],
    ['IPv4-mapped IPv6 in hex', () => `[::ffff:7f00:1]:${port()}`, 'a loopback address'],
    ['0.0.0.0', () => `0.0.0.0:${port()}`, 'unspecified'],
    ['the IPv6 unspecified address', () => `[::]:${port()}`, 'unspecified'],
    ['cloud metadata', () => '169.254.169.254', 'link-local'],
    ['10/8', () => '10.0.0.1:8080', 'a private address'],
    ['172.16/12', () => '172.16.5.4', 'a private address'],
    ['192.168/16', () => '192.168.1.1', 'a private address'],
    ['fc00::/7', () => '[fd00::1]:8080', 'unique local'],
    ['IPv6 link-local', () => '[fe80::1]', 'link-local'],
    ['carrier-grade NAT 100.64/10', () => '100.64.0.1', 'carrier-grade NAT'],
    ['NAT64 64:ff9b::/96', () => '[64:ff9b::a9fe:a9fe]', 'NAT64'],
    ['6to4 2002::/16', () => '[2002:7f00:1::1]', '6to4'],
    ['documentation 192.0.2/24', () => '192.0.2.10', 'a documentation address'],
    ['IPv6 documentation', () => '[2001:db8::1]', 'a documentation address'],
    ['benchmarking 198.18/15', () => '198.18.0.1', 'benchmarking'],
    ['reserved 240/4', () => '240.0.0.1', 'reserved'],
  ])('refuses %s with 403 destination_not_allowed before connecting', async (_what, host, why) => {
    const res = await get('/closed/x', host());
    expect(res.status).toBe(403);
    const body = JSON.parse(res.body) as { error: string; error_description: string };
    expect(body.error).toBe('destination_not_allowed');
    expect(body.error_description).toContain(why);
    expect(body.error_description).toContain('allowedDestinations');
    expect(reached).toEqual([]);
  });

  it('refuses an absolute-form target naming loopback, whatever the Host header says', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(proxyPort, '127.0.0.1', () =>
        socket.write(
          `GET http://127.1:${upstream.port}/closed/x HTTP/1.1\r\nhost: example.com\r\nconnection: close\r\n\r\n`,
        ),
      );
      let out = '';
      socket.on('data', (c: Buffer) => (out += c.toString()));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 403/);
    expect(text).toContain('"error":"destination_not_allowed"');
    expect(reached).toEqual([]);
  });
});

describe('allowedDestinations', () => {
  it('reaches a listed range, whatever spelling the Host used, and the backend sees the normalised Host', async () => {
    const res = await get('/allowed/x', `0x7f.1:${upstream.port}`);
    expect(res.status).toBe(200);
    expect(reached).toEqual([`/allowed/x host=127.0.0.1:${upstream.port}`]);
  });

  it('still refuses ranges it does not list', async () => {
    const res = await get('/allowed/x', '169.254.169.254');
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'destination_not_allowed' });
  });

  it('hands CEL rules the normalised Host: a rule against 127.0.0.1 cannot be passed with 127.1 or decimal', async () => {
    for (const spelling of ['127.1', '2130706433', '0x7f000001', '127.0.0.1.'])
      expect((await get('/local/x', `${spelling}:${upstream.port}`)).status, spelling).toBe(403);
    expect(reached).toEqual([]);
  });

  it('lets a rule allow by request.host, which reads the normalised Host', async () => {
    expect((await get('/byhost/x', `127.1:${upstream.port}`)).status).toBe(200);
    expect((await get('/byhost/x', `localhost:${upstream.port}`)).status).toBe(403);
  });
});

describe('an open forward proxy', () => {
  it('is warned about when the configuration is applied, before any request', () => {
    const warned = logLines.map((l) => JSON.parse(l) as { route?: string; msg: string });
    expect(warned.filter((l) => l.msg.includes('forwards to any host'))).toEqual([
      expect.objectContaining({ route: 'HTTPRoute/default/open/0' }),
    ]);
  });
});
