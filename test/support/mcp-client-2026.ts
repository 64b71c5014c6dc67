// The TypeScript SDK 2.4 client (@modelcontextprotocol/client, MCP 2026-07-28) for tests, in each of its
// version-negotiation modes: `legacy` (its default: the 2025 initialize handshake), `auto` (server/discover,
// falling back to initialize) and pinned to 2026-07-28 (stateless, no fallback).
import { Client, StreamableHTTPClientTransport, type VersionNegotiationMode } from '@modelcontextprotocol/client';

export const pinned2026: VersionNegotiationMode = { pin: '2026-07-28' };

/** A connected client; multi round-trip requests are answered by the handlers below (name `Ada`, color `teal`). */
export async function connect2026(
  url: string,
  mode: VersionNegotiationMode,
  fetchImpl?: typeof fetch,
): Promise<Client> {
  const client = new Client(
    { name: 'gw-test-client-2026', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', (req) => {
    const asked = 'requestedSchema' in req.params ? Object.keys(req.params.requestedSchema.properties) : [];
    const content: Record<string, string> = asked.includes('color') ? { color: 'teal' } : { name: 'Ada' };
    return { action: 'accept', content };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetchImpl ? { fetch: fetchImpl } : {}));
  return client;
}

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}
