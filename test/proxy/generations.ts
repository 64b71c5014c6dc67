// The two generations of MCP client that tests of authorization, list filtering, guardrails and telemetry
// run the same cases with (describe.each): a 2025 client (initialize, then requests on a session) and a
// 2026-07-28 client (no initialize, no session, the envelope on every request). `connect` is the SDK's
// own client of each generation; `open` speaks the wire by hand, for cases that read HTTP statuses.
import { connectClient } from './harness.js';
import { connectModernClient, post2026 } from './modern-client.js';

/** What the cases use of either SDK client. */
export interface GenerationClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** A client spoken to by hand: the status of its opening exchange (initialize, or server/discover), then calls. */
export interface RawClient {
  opened: { status: number; body: Record<string, unknown> };
  call(method: string, params?: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }>;
}

export interface Generation {
  generation: string;
  /** Whether the client holds a session (the proxy hands out an mcp-session-id). */
  session: boolean;
  connect(url: string, headers?: Record<string, string>): Promise<{ client: GenerationClient }>;
  open(url: string, headers?: Record<string, string>): Promise<RawClient>;
}

const legacyVersion = '2025-11-25';

export const generations: Generation[] = [
  {
    generation: legacyVersion,
    session: true,
    connect: (url, headers = {}) => connectClient(url, {}, headers),
    open: (url, headers = {}) => openLegacy(url, headers),
  },
  {
    generation: '2026-07-28',
    session: false,
    connect: (url, headers = {}) => connectModernClient(url, headers),
    open: async (url, headers = {}) => {
      const call: RawClient['call'] = (method, params = {}) => {
        const name = typeof params.name === 'string' ? params.name : params.uri;
        return post2026(url, method, params, { ...headers, ...(typeof name === 'string' ? { 'mcp-name': name } : {}) });
      };
      return { opened: await call('server/discover'), call };
    },
  },
];

async function openLegacy(url: string, headers: Record<string, string>): Promise<RawClient> {
  let id = 0;
  let session = '';
  const post = async (method: string, params: Record<string, unknown>) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...headers,
        ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': legacyVersion } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    session ||= res.headers.get('mcp-session-id') ?? '';
    const text = await res.text();
    return { status: res.status, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
  const init = { protocolVersion: legacyVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } };
  const opened = await post('initialize', init);
  return { opened, call: (method, params = {}) => post(method, params) };
}
