// A bind a new snapshot removes retires its server as a drain would, alone: the port is let go at once, a
// request sent later on one of its kept-alive connections is answered 421 (open a new connection) and the
// connection closes (not reset under the client, never served by a listener whose handshake it skipped),
// requests in flight finish with `Connection: close`, idle connections close after the grace, and the
// runtime's close cuts whatever is left. Real sockets on 127.0.0.1.
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { ResourceInput } from '../../src/ir/types.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { rawConnection } from './raw-connection.js';

let upstream: Upstream;
let runtime: ProxyRuntime;
let release: () => void = () => {};
/** Resolves once the upstream holds a /up/slow request (the proxy is waiting on it). */
let slowArrived: Promise<void>;

beforeEach(async () => {
  let gate = Promise.resolve();
  let arrived: () => void = () => {};
  slowArrived = new Promise<void>((r) => (arrived = r));
  upstream = await startUpstream((req, res) => {
    if (req.url !== '/up/slow') return void res.end('ok');
    arrived();
    void gate.then(() => res.end('slow done'));
  });
  gate = new Promise<void>((r) => (release = r));
  runtime = new ProxyRuntime({ log });
});

afterEach(async () => {
  release();
  await runtime.close();
  await upstream.close();
});

/** Binds `names` on 127.0.0.1:0, each with a listener and a route to the upstream under /up. */
function snapshot(version: string, names: string[]) {
  const resources: ResourceInput[] = [{ backend: { name: 'up', static: { host: '127.0.0.1', port: upstream.port } } }];
  for (const n of names)
    resources.push(
      { bind: { name: n, port: 0, address: '127.0.0.1' } },
      { listener: { name: `l-${n}`, bind: n, protocol: 'HTTP' } },
      {
        route: {
          name: `r-${n}`,
          listeners: [`l-${n}`],
          matches: [{ prefix: '/up' }],
          backends: [{ backend: 'up', weight: 1 }],
        },
      },
    );
  return normalizeSnapshot({ version, resources });
}

const refused = (port: number): Promise<string> =>
  new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve('connected')));
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });

describe('a bind the new snapshot removes', () => {
  it('lets its port go at once; a request sent later on a kept-alive connection is answered 421 and closes it', async () => {
    await runtime.apply(snapshot('1', ['a', 'b']));
    const port = runtime.boundPorts().a as number;
    const conn = await rawConnection(port);
    const first = await conn.send('/up/x');
    expect(first.head).toMatch(/^HTTP\/1\.1 200/);
    expect(first.head.toLowerCase()).toContain('connection: keep-alive');

    await runtime.apply(snapshot('2', ['b']));
    // The client had the connection and reuses it (within the idle grace): an answer telling it to reconnect.
    const second = await conn.send('/up/x');
    expect(second.head).toMatch(/^HTTP\/1\.1 421/);
    expect(second.head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(second.body)).toMatchObject({ error: 'misdirected_request' });
    await conn.closed;
    expect(Object.keys(runtime.boundPorts())).toEqual(['b']);
    expect(await refused(port)).toBe('ECONNREFUSED');
  });

  it('lets a request in flight finish, with Connection: close', async () => {
    await runtime.apply(snapshot('1', ['a', 'b']));
    const conn = await rawConnection(runtime.boundPorts().a as number);
    const slow = conn.send('/up/slow');
    await slowArrived;
    await runtime.apply(snapshot('2', ['b']));
    release();
    const answer = await slow;
    expect(answer.head).toMatch(/^HTTP\/1\.1 200/);
    expect(answer.body).toBe('slow done');
    expect(answer.head.toLowerCase()).toContain('connection: close');
    await conn.closed;
  });

  it('closes its idle connections after the grace, and the runtime closing cuts one still busy', async () => {
    await runtime.apply(snapshot('1', ['a', 'b']));
    const port = runtime.boundPorts().a as number;
    const idle = await rawConnection(port);
    expect((await idle.send('/up/x')).head).toMatch(/^HTTP\/1\.1 200/);
    const busy = await rawConnection(port);
    void busy.send('/up/slow').catch(() => undefined);
    await slowArrived;

    await runtime.apply(snapshot('2', ['b']));
    await idle.closed;
    await runtime.close();
    await busy.closed;
  });
});
