// A leaner `fetch` for the SDK's HTTP client transports: undici's request API on a shared keep-alive
// pool, wrapped into a standard Response. JSON bodies are read whole (the common case); streams
// (SSE) stay streams. Saves most of WHATWG fetch's per-call cost on the proxy's hot path.
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';

const agent = new Agent({ keepAliveTimeout: 60_000, connections: 256 });

type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return headers as Record<string, string>;
}

export const upstreamFetch: FetchLike = async (input, init = {}) => {
  const body = init.body;
  if (body !== undefined && body !== null && typeof body !== 'string') return fetch(input, init);
  const res = await request(input, {
    method: (init.method ?? 'GET') as 'GET', headers: headerRecord(init.headers), body: body ?? null,
    dispatcher: agent, ...(init.signal ? { signal: init.signal } : {}),
  });
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (Array.isArray(v)) for (const item of v) headers.append(k, item);
    else if (v !== undefined) headers.set(k, v);
  }
  const status = res.statusCode;
  const noBody = status === 204 || status === 304 || init.method === 'HEAD';
  if (noBody) {
    res.body.resume();
    return new Response(null, { status, headers });
  }
  if ((headers.get('content-type') ?? '').includes('text/event-stream')) {
    return new Response(Readable.toWeb(res.body) as ReadableStream<Uint8Array>, { status, headers });
  }
  return new Response(await res.body.arrayBuffer(), { status, headers });
};
