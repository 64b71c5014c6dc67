// A plain listener reads each new connection's first bytes to tell h2c from HTTP/1.1 (h2c-preface.ts); until
// then neither HTTP server tracks the socket. Closing the runtime must not wait for such a connection to
// speak or for the preface timeout: an MCP client that opened a socket and aborted its request before
// writing it (the SDK's cancellation of a listen does) held every test's proxy shutdown for 10 s.
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startProxy } from './harness.js';

describe('closing a plain listener', () => {
  it('closes a connection that has not sent its first bytes instead of waiting out the preface timeout', async () => {
    // Far beyond the test's timeout: a close that waited for it would fail the test.
    const proxy = await startProxy(
      { targets: [{ name: 'a', streamableHttp: { url: 'http://127.0.0.1:9/mcp' } }] },
      { limits: { headersTimeoutMs: 600_000 } },
    );
    const { port } = new URL(proxy.url);
    const socket: Socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    await proxy.close();
    await ended;
    expect(socket.destroyed).toBe(true);
  });
});
