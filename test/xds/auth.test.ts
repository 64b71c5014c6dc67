import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import type { XdsServer } from '../../src/xds/server.js';
import { createMemorySource, node, rawStream, res, startServer, waitFor } from './harness.js';

// TokenReview cannot run here: a table of tokens stands in for it, the stream checks are real.
const tokens: Record<string, { namespace: string; serviceAccount: string }> = {
  'token-team-a': { namespace: 'team-a', serviceAccount: 'gw-proxy' },
  'token-team-b': { namespace: 'team-b', serviceAccount: 'gw-proxy' },
};

describe('xds proxy authentication', () => {
  const source = createMemorySource();
  let server: XdsServer;

  beforeAll(async () => {
    source.set('team-a/gw', { 'listener/a': res('a') });
    source.set('team-b/gw', { 'listener/b': res('b') });
    ({ server } = await startServer(source, {
      authenticate: async (token) => tokens[token] ?? null,
      authorize: (identity, gateway) =>
        gateway.startsWith(`${identity.namespace}/`) && identity.serviceAccount === 'gw-proxy',
    }));
  });
  afterAll(async () => {
    await server.close();
  });

  it('serves the gateway the proxy identity may read', async () => {
    const raw = rawStream(server.port, { token: 'token-team-a' });
    raw.send({ node: node('team-a/gw') });
    await waitFor('snapshot', () => raw.responses.length === 1);
    expect(raw.responses[0]!.resources.map((r) => r.name)).toEqual(['listener/a']);
    raw.close();
  });

  it('refuses another gateway with PERMISSION_DENIED', async () => {
    const raw = rawStream(server.port, { token: 'token-team-a' });
    raw.send({ node: node('team-b/gw') });
    const st = await raw.status;
    raw.close();
    expect(st.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(st.details).toBe(
      'system:serviceaccount:team-a:gw-proxy may not read the configuration of gateway team-b/gw',
    );
    expect(raw.responses).toEqual([]);
  });

  it('refuses an unknown token with UNAUTHENTICATED and never echoes it', async () => {
    const raw = rawStream(server.port, { token: 'forged-token' });
    raw.send({ node: node('team-a/gw') });
    const st = await raw.status;
    raw.close();
    expect(st.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(st.details).not.toContain('forged-token');
  });

  it('refuses a stream without a token with UNAUTHENTICATED', async () => {
    const raw = rawStream(server.port);
    raw.send({ node: node('team-a/gw') });
    const st = await raw.status;
    raw.close();
    expect(st.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(st.details).toContain('missing bearer token');
  });
});

describe('xds token check failure', () => {
  it('answers UNAVAILABLE when the token check itself fails, so the proxy retries', async () => {
    const source = createMemorySource();
    source.set('team-a/gw', { 'listener/a': res('a') });
    const { server } = await startServer(source, {
      authenticate: async () => {
        throw new Error('TokenReview: connection refused');
      },
    });
    try {
      const raw = rawStream(server.port, { token: 'token-team-a' });
      raw.send({ node: node('team-a/gw') });
      const st = await raw.status;
      raw.close();
      expect(st.code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      await server.close();
    }
  });
});
