import { describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';
import { formatProblem } from '../../src/problem.js';
import { pino } from 'pino';
import { ProxyRuntime } from '../../src/proxy/runtime.js';

const broken = normalizeSnapshot({
  version: '1',
  resources: [
    { bind: { name: 'b', port: 0 } },
    { listener: { name: 'l', bind: 'missing-bind' } },
    { route: { name: 'r', listeners: ['l', 'nope'], backends: [{ backend: 'ghost', weight: 1 }] } },
    { backend: { name: 's', aws: {} } },
    { backend: { name: 's', mcp: { targets: [{ name: 't' }] } } },
  ],
});

describe('snapshot consistency', () => {
  it('names every dangling reference, duplicate and unsupported kind with its object and field', () => {
    expect(checkSnapshot(broken, 'xds').map(formatProblem)).toEqual([
      'xds: Backend s: name: duplicates another backend named s',
      'xds: Listener l: bind: refers to bind missing-bind, which does not exist',
      'xds: Route r: listeners[1]: refers to listener nope, which does not exist',
      'xds: Route r: backends[0].backend: refers to backend ghost, which does not exist',
      'xds: Backend s: aws.agentRuntimeArn: must be an AgentCore runtime ARN (arn:aws:bedrock-agentcore:<region>:<account>:runtime/<id>), got ""',
      'xds: Backend s: mcp.targets[0]: must set stdio or remote',
    ]);
  });

  it('applies nothing from an inconsistent snapshot', async () => {
    const runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
    await expect(runtime.apply(broken)).rejects.toThrow(/missing-bind/);
    expect(runtime.boundPorts()).toEqual({});
    expect(runtime.ready).toBe(false);
    await runtime.close();
  });

  it('refuses listeners of one bind that disagree on the PROXY protocol header (read before a listener is known)', () => {
    const snapshot = normalizeSnapshot({
      version: '1',
      resources: [
        { bind: { name: 'b', port: 0 } },
        { listener: { name: 'a', bind: 'b', hostnames: ['a.test'], proxyProtocol: { version: 'PROXY_PROTOCOL_V1' } } },
        { listener: { name: 'c', bind: 'b', hostnames: ['c.test'] } },
      ],
    });
    expect(checkSnapshot(snapshot, 'xds').map(formatProblem)).toEqual([
      'xds: Listener c: proxyProtocol: must be the same as on listener a, which shares bind b: the header is read before a listener is known',
    ]);
  });
});

describe('keepalive interval and probes on a Node that cannot set them', () => {
  const listener = (limits: Record<string, number>) =>
    normalizeSnapshot({
      version: '1',
      resources: [{ bind: { name: 'b', port: 0 } }, { listener: { name: 'l', bind: 'b', limits } }],
    });

  it('serves the schema defaults and refuses other values by field', async () => {
    const { keepaliveProblems } = await import('../../src/proxy/http/connection-settings.js');
    const listeners = (s: ReturnType<typeof normalizeSnapshot>) =>
      s.resources.flatMap((r) => (r.listener ? [r.listener] : []));
    const defaults = listener({ keepaliveTimeMs: 30_000, keepaliveIntervalMs: 180_000, keepaliveProbes: 9 });
    expect(keepaliveProblems(listeners(defaults), 'xds', false)).toEqual([]);
    const asked = listener({ keepaliveTimeMs: 30_000, keepaliveIntervalMs: 5_000, keepaliveProbes: 3 });
    expect(keepaliveProblems(listeners(asked), 'xds', false).map(formatProblem)).toEqual([
      expect.stringMatching(
        /^xds: Listener l: limits\.keepaliveIntervalMs: frontend\.tcp\.keepalive\.interval needs Node 24/,
      ),
      expect.stringMatching(
        /^xds: Listener l: limits\.keepaliveProbes: frontend\.tcp\.keepalive\.retries needs Node 24/,
      ),
    ]);
    expect(keepaliveProblems(listeners(asked), 'xds', true)).toEqual([]);
  });

  it('refuses an upstream keepalive interval or probe count (backend.tcp) on a Node that cannot set them', async () => {
    const { upstreamKeepaliveProblems } = await import('../../src/proxy/http/connection-settings.js');
    const tcp = { connectTimeoutMs: 0, keepaliveTimeMs: 30_000, keepaliveIntervalMs: 5_000, keepaliveProbes: 3 };
    const timeOnly = { connectTimeoutMs: 0, keepaliveTimeMs: 30_000, keepaliveIntervalMs: 0, keepaliveProbes: 0 };
    const route = { name: 'r', backends: [{ tcp: timeOnly, targetTcp: { t: tcp }, ai: null }] } as never;
    expect(upstreamKeepaliveProblems([route], 'xds', false).map(formatProblem)).toEqual([
      expect.stringMatching(
        /^xds: Route r: backends\[0\]\.targetTcp\.t: backend\.tcp\.keepalive interval and retries need Node 24/,
      ),
    ]);
    expect(upstreamKeepaliveProblems([route], 'xds', true)).toEqual([]);
  });
});
