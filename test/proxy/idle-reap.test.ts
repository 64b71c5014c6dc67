import { afterAll, describe, expect, it } from 'vitest';
import { connectClient, processAlive, startProxy, stdioTarget, textOf, waitFor, type Started } from './harness.js';

let proxy: Started | undefined;
afterAll(async () => {
  await proxy?.close();
});

describe('a client that goes away without DELETE', () => {
  it('has its session closed after the idle timeout and its stdio process reaped', async () => {
    proxy = await startProxy({ targets: [stdioTarget('t')] }, { sessionIdleMs: 1500 });
    const { client } = await connectClient(proxy.url);
    const pid = Number(textOf(await client.callTool({ name: 'pid' })));
    await client.close(); // drops the GET stream, sends no DELETE
    await waitFor(() => !processAlive(pid), 10_000);
    expect(proxy.runtime.sessions.size).toBe(0);
  });
});
