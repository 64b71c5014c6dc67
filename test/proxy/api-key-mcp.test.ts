// API-key entries with metadata on an MCP route: the matched entry's metadata is CEL's `apiKey` in the route's
// authorization, for initialize and for every later MCP request. Translated from manifests (GwBackend with a
// real streamable-HTTP MCP target, GwPolicy, Secret) and served by a real runtime; the MCP SDK is the client,
// once as a 2025 client (1.x, a session) and once as a 2026-07-28 one (2.4, stateless): the same cases hold.
import { createHash } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { connectClient } from './harness.js';
import { connectModernClient } from './modern-client.js';
import { translatedIr } from './translated-ir.js';
import { mcpBackendManifest, trafficManifests } from './traffic-manifests.js';

const plainKey = 'sk-plain-0f8e7d6c5b4a';
const engKey = 'sk-eng-1234567890ab';
const opsKey = 'sk-ops-ba0987654321';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const secret = `apiVersion: v1
kind: Secret
metadata: {name: api-keys, namespace: default}
data:
  plain: ${b64(plainKey)}
  eng: ${b64(JSON.stringify({ key: engKey, metadata: { group: 'eng' } }))}
  ops: ${b64(JSON.stringify({ keyHash: `sha256:${createHash('sha256').update(opsKey).digest('hex')}`, metadata: { group: 'ops' } }))}
`;

const generations = [
  { generation: '2025-11-25', open: (url: string, headers: Record<string, string>) => connectClient(url, {}, headers) },
  { generation: '2026-07-28', open: connectModernClient },
];

describe.each(generations)('API-key metadata in authorization on MCP routes ($generation)', ({ open }) => {
  let fixture: HttpFixture;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    fixture = await startHttpFixture({ id: 'keys' });
    const port = Number(new URL(fixture.url).port);
    const auth = '{secretRef: {name: api-keys}}';
    // A rule reading mcp.tool says nothing about requests that name no tool, so `ops` initializes freely.
    const rule = (expr: string) =>
      `{apiKeyAuthentication: ${auth}, authorization: {policy: {matchExpressions: ['${expr}']}}}`;
    const manifests = trafficManifests(
      1,
      [
        { name: 'eng', backend: 'mcp', traffic: rule('apiKey.group == "eng"') },
        { name: 'ops', backend: 'mcp', traffic: rule('apiKey.group == "ops" && mcp.tool != "add"') },
      ],
      `${mcpBackendManifest('mcp', port)}---\n${secret}`,
    );
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await fixture?.close();
  });

  const connect = (key: string, path = '/eng') => open(`${base}${path}`, { authorization: `Bearer ${key}` });

  it('lets a key whose metadata the rule accepts initialize, list and call tools', async () => {
    const { client } = await connect(engKey);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('add');
      const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      expect(JSON.stringify(sum.content)).toContain('5');
    } finally {
      await client.close();
    }
  });

  it('applies per-method rules to the metadata: the ops key sees and calls echo but not add', async () => {
    const { client } = await connect(opsKey, '/ops');
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('echo');
      expect(names).not.toContain('add');
      await expect(client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).rejects.toThrow(/forbidden/);
    } finally {
      await client.close();
    }
  });

  it('answers initialize (server/discover) with 403 for a key whose metadata the rule refuses, and for a plain key (none)', async () => {
    // The 1.x client quotes the body (`forbidden`), the 2.4 client the status.
    await expect(connect(opsKey)).rejects.toThrow(/forbidden|HTTP 403/);
    await expect(connect(plainKey)).rejects.toThrow(/forbidden|HTTP 403/);
  });
});
