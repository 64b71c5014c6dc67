// Starts a proxy runtime in-process on 127.0.0.1:0 from a standalone-config object, and connects the
// MCP SDK's real client to it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigFile, TargetConfig } from '../../src/config/schema.js';
import { snapshotFor } from './snapshot-for.js';
import type { ListenerTls } from '../../src/ir/types.js';
import { ProxyRuntime, type RuntimeOptions } from '../../src/proxy/runtime.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const stdioFixture = path.resolve(here, '../fixtures/mcp-stdio-server.mjs');
export const everythingServer = path.resolve(
  here,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

export function stdioTarget(name: string, env: Record<string, string> = {}): TargetConfig {
  return { name, stdio: { cmd: process.execPath, args: [stdioFixture], env: { FIXTURE_ID: name, ...env } } };
}

export { snapshotFor };

export interface Started {
  runtime: ProxyRuntime;
  url: string;
  close(): Promise<void>;
}

export async function startProxy(
  mcp: Omit<ConfigFile['mcp'], 'port'>,
  opts: Partial<RuntimeOptions> = {},
): Promise<Started> {
  const runtime = new ProxyRuntime({ log: pino({ level: process.env.TEST_LOG ?? 'silent' }), ...opts });
  await runtime.apply(snapshotFor(mcp));
  const port = Object.values(runtime.boundPorts())[0];
  return { runtime, url: `http://127.0.0.1:${port}${mcp.path ?? '/mcp'}`, close: () => runtime.close() };
}

export async function connectClient(
  url: string,
  capabilities: ClientCapabilities = {},
  headers: Record<string, string> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** An IR `ListenerTls` with these certificates and no frontend TLS settings (hand-built listeners in tests). */
export function listenerTlsOf(certificates: ListenerTls['certificates']): ListenerTls {
  return {
    certificates,
    minProtocolVersion: 'TLS_PROTOCOL_VERSION_UNSPECIFIED',
    maxProtocolVersion: 'TLS_PROTOCOL_VERSION_UNSPECIFIED',
    cipherSuites: [],
    keyExchangeGroups: [],
    alpnProtocols: [],
    handshakeTimeoutMs: 0,
    workloadIdentity: false,
    clientWorkloadIdentity: false,
  };
}
