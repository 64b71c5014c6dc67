// A minimal MCP client over streamable HTTP for the playground. It calls the route's own URL, so each
// call passes the route's whole pipeline (authentication, authorization, guardrails) like any client's.
export interface Exchange {
  request: unknown;
  status: number;
  response: unknown;
}

const PROTOCOL_VERSION = '2025-06-18';

/** The JSON-RPC messages of a response body: one JSON value, or the `data:` events of an SSE stream. */
function messagesOf(contentType: string, text: string): unknown[] {
  if (!contentType.includes('text/event-stream')) return text.trim() ? [JSON.parse(text)] : [];
  const out: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (data) out.push(JSON.parse(data));
  }
  return out;
}

export class McpClient {
  private session: string | undefined;
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly onExchange: (e: Exchange) => void,
  ) {}

  private headers(): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...(this.session ? { 'mcp-session-id': this.session } : {}),
    };
  }

  private async post(message: Record<string, unknown>): Promise<unknown> {
    const res = await fetch(this.url, { method: 'POST', headers: this.headers(), body: JSON.stringify(message) });
    this.session = res.headers.get('mcp-session-id') ?? this.session;
    const text = await res.text();
    let messages: unknown[];
    try {
      messages = messagesOf(res.headers.get('content-type') ?? '', text);
    } catch {
      messages = [text];
    }
    const answer = messages.find((m) => (m as { id?: unknown }).id === message.id) ?? messages[0] ?? null;
    this.onExchange({ request: message, status: res.status, response: answer });
    if (!res.ok && message.id !== undefined) throw new Error(errorText(res.status, answer));
    return answer;
  }

  async request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const answer = (await this.post({ jsonrpc: '2.0', id: this.nextId++, method, params })) as {
      result?: Record<string, unknown>;
      error?: { message?: string };
    };
    if (answer?.error) throw new Error(`${method}: ${answer.error.message ?? 'error'}`);
    return answer?.result ?? {};
  }

  async initialize(): Promise<Record<string, unknown>> {
    const result = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'gw-ui-playground', version: '1' },
    });
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return result;
  }
}

function errorText(status: number, body: unknown): string {
  const b = body as { error_description?: string; error?: { message?: string } | string } | null;
  const detail = b?.error_description ?? (typeof b?.error === 'object' ? b.error.message : b?.error);
  return `HTTP ${status}${detail ? `: ${detail}` : ''}`;
}

/** Every page of a list call (`tools/list`, `prompts/list`, `resources/list`), following `nextCursor`. */
export async function listAll(client: McpClient, method: string, key: string, maxPages = 50): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await client.request(method, cursor ? { cursor } : {});
    items.push(...((result[key] as unknown[] | undefined) ?? []));
    cursor = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
    if (!cursor) break;
  }
  return items;
}
