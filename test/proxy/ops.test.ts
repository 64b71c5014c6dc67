import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAddress, startOps, type OpsServers } from '../../src/proxy/ops.js';

let ops: OpsServers | undefined;
afterAll(async () => {
  await ops?.close();
});

describe('operations endpoints', () => {
  it('reports not ready with 503 until a configuration is applied, then 200', async () => {
    let ready = false;
    ops = await startOps({
      readyAddress: '127.0.0.1:0',
      metricsAddress: '127.0.0.1:0',
      isReady: () => ready,
      registry: new Registry(),
    });
    const url = `http://127.0.0.1:${ops.readyPort}/healthz/ready`;
    const before = await fetch(url);
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({
      error: 'not_ready',
      error_description: 'no configuration has been applied yet',
    });
    ready = true;
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ops.readyPort}/other`)).status).toBe(404);
    const metrics = await fetch(`http://127.0.0.1:${ops.metricsPort}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
  });

  it('parses listen addresses and rejects malformed ones', () => {
    expect(parseAddress('0.0.0.0:15021')).toEqual({ host: '0.0.0.0', port: 15021 });
    expect(parseAddress(':15020')).toEqual({ host: undefined, port: 15020 });
    expect(parseAddress('[::1]:80')).toEqual({ host: '::1', port: 80 });
    expect(parseAddress('localhost')).toBeUndefined();
    expect(parseAddress('h:99999')).toBeUndefined();
  });
});
