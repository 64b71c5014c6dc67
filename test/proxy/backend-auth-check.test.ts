// A snapshot (hand-written or from another producer) whose edge credentials the proxy cannot apply is
// refused whole with the route, edge and field named, and never a key.
import { describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';
import { formatProblem } from '../../src/problem.js';

const snapshot = normalizeSnapshot({
  version: '1',
  resources: [
    { backend: { name: 'web', static: { host: 'web.example', port: 80 } } },
    { backend: { name: 'tools', mcp: { targets: [{ name: 't', remote: { url: 'http://tools.example/mcp' } }] } } },
    {
      route: {
        name: 'ok',
        backends: [{ backend: 'web', weight: 1, credential: { key: 'sk-never-shown', source: 'test' } }],
      },
    },
    {
      route: {
        name: 'cloud',
        backends: [
          {
            backend: 'web',
            weight: 1,
            credential: { azure: { tenantId: 't', clientId: 'c', clientSecret: 'never-shown' }, source: 'test' },
          },
        ],
      },
    },
    {
      route: {
        name: 'mcp',
        backends: [{ backend: 'tools', weight: 1, targetCredentials: { t: { passthrough: true, source: 'test' } } }],
      },
    },
  ],
});

describe('edge credentials in a snapshot', () => {
  it('names each credential an edge cannot apply, by route, edge and field, without its secret', () => {
    const problems = checkSnapshot(snapshot, 'xds').map(formatProblem);
    expect(problems).toEqual([
      'xds: Route cloud: backends[0].credential: azure cannot be applied to static backends; only key, passthrough, tokenExchange, crossAppAccess or jwtSign',
      'xds: Route mcp: backends[0].targetCredentials.t: passthrough cannot be applied to MCP targets; only key, tokenExchange, crossAppAccess or jwtSign',
    ]);
    expect(problems.join(' ')).not.toMatch(/never-shown/);
  });
});
