import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemorySource, names, res, startProxy, startServer, waitFor } from './harness.js';
import { tempDirs } from '../support/temp-dir.js';

const tempDir = tempDirs();

describe('xds reconnect', () => {
  it('keeps the last state while the server is down, retries with growing delays, and resyncs only the difference', async () => {
    const source = createMemorySource();
    source.set('default/gw', { 'listener/a': res('a1'), 'route/b': res('b1'), 'route/c': res('c1') });
    let { server } = await startServer(source);
    const port = server.port;
    const p = startProxy(port);
    const delays: number[] = [];
    p.client.on('disconnected', (_s, retryInMs) => delays.push(retryInMs));
    try {
      await waitFor('snapshot', () => p.client.ready);
      expect(p.updates).toHaveLength(1);

      await server.close();
      await waitFor('several retries', () => delays.length >= 5);
      expect(p.client.connected).toBe(false);
      expect(p.client.ready).toBe(true);
      expect(Object.fromEntries(p.state)).toEqual({ 'listener/a': 'a1', 'route/b': 'b1', 'route/c': 'c1' });
      // 10 ms doubling with ±20% jitter: each delay is above the previous one's lower bound.
      expect(delays[0]).toBeLessThanOrEqual(12);
      expect(delays[4]!).toBeGreaterThan(delays[0]! * 4);

      // While the controller was away one resource changed and one was removed.
      source.set('default/gw', { 'listener/a': res('a1'), 'route/b': res('b2') });
      ({ server } = await startServer(source, { port }));
      await waitFor('resync', () => p.updates.length === 2);
      expect(p.client.connected).toBe(true);
      expect(names(p.updates[1])).toEqual({ upserts: ['route/b'], removes: ['route/c'] });
      expect(Object.fromEntries(p.state)).toEqual({ 'listener/a': 'a1', 'route/b': 'b2' });
    } finally {
      p.client.close();
      await server.close();
    }
  });

  it('re-reads the token file on every connect', async () => {
    const dir = tempDir('gw-xds-');
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'old-token\n');
    const seen: string[] = [];
    const source = createMemorySource();
    source.set('default/gw', { 'listener/a': res('a1') });
    const authenticate = async (token: string) => {
      seen.push(token);
      return { namespace: 'default', serviceAccount: 'gw' };
    };
    let { server } = await startServer(source, { authenticate });
    const port = server.port;
    const p = startProxy(port, { tokenFile });
    try {
      await waitFor('snapshot', () => p.client.ready);
      await server.close();
      await writeFile(tokenFile, 'new-token\n');
      ({ server } = await startServer(source, { port, authenticate }));
      await waitFor('reconnect', () => p.client.connected);
      expect(seen[0]).toBe('old-token');
      expect(seen.at(-1)).toBe('new-token');
    } finally {
      p.client.close();
      await server.close();
    }
  });
});
