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
