// The built-in admin address is optional: another proxy on the host holding it costs this one its UI (a
// warning), not its start; an address someone asked for that cannot be bound stops the start with one line.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startXdsProxy } from '../../../src/proxy/xds-config.js';

let holder: Server;
let taken: number;
beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  taken = (holder.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => holder.close(() => r())));

const base = {
  address: '127.0.0.1:1',
  gateway: 'default/gw',
  podName: 'p',
  log: pino({ level: 'silent' }),
  readyAddress: '127.0.0.1:0',
  metricsAddress: '127.0.0.1:0',
};

describe('the admin address when its port is taken', () => {
  it('the default only costs the UI', async () => {
    const proxy = await startXdsProxy({ ...base, admin: { address: `127.0.0.1:${taken}`, optional: true } });
    expect(proxy.admin).toBeUndefined();
    await proxy.close();
  });

  it('an address that was asked for stops the start, naming the flag', async () => {
    await expect(startXdsProxy({ ...base, admin: { address: `127.0.0.1:${taken}` } })).rejects.toThrow(
      `--admin-address 127.0.0.1:${taken}: the port is already in use`,
    );
  });
});
