// The TypeScript SDK 2.4 client pinned to MCP 2026-07-28 (no initialize, no session): the 2026 twin of
// harness.ts connectClient, for tests that run the same cases with both generations of client.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export async function connectModernClient(
  url: string,
  headers: Record<string, string> = {},
  capabilities: Record<string, unknown> = {},
): Promise<{ client: Client }> {
  const client = new Client(
    { name: 'new-client', version: '2.4.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return { client };
}

/**
 * One 2026-07-28 request by hand: the envelope in `_meta` (with `capabilities`; none at all when null),
 * the routing headers as given.
 */
export async function post2026(
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  capabilities: Record<string, unknown> | null = { elicitation: {} },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method,
      params: capabilities === null ? params : { ...params, _meta: meta },
    }),
  });
  const text = await res.text();
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return { status: res.status, body: JSON.parse(data) as Record<string, unknown> };
}
