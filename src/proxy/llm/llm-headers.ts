// Headers of an LLM call: what of the client's goes upstream, what prompt guards see, and what the
// proxy reads from a provider's answer.
import type { IncomingMessage } from 'node:http';
import { withoutHopByHop } from '../http/forward-headers.js';
import type { LlmProvider } from './llm-route.js';

// Client credentials for the gateway, and what the proxy sets itself, never travel to the vendor as sent.
const DROPPED = [
  'host',
  'content-length',
  'content-encoding',
  'authorization',
  'x-api-key',
  'api-key',
  'cookie',
  'accept-encoding',
  'content-type',
  'accept',
];

export const EVENT_STREAM = 'application/vnd.amazon.eventstream';

/** Bedrock names the error in a header (`ValidationException:http://…`). */
export function errorTypeOf(headers: Record<string, unknown>): string {
  return headerText(headers['x-amzn-errortype']) ?? '';
}

export function headerText(v: unknown): string | undefined {
  return Array.isArray(v) ? (v[0] === undefined ? undefined : String(v[0])) : v === undefined ? undefined : String(v);
}

/** For a SigV4-signed call the client's own `x-amz-*` headers (a date, a token) are dropped: only the proxy's go upstream. */
export function signedOnly(
  headers: Record<string, string | string[]>,
  p: LlmProvider,
): Record<string, string | string[]> {
  if (p.edge?.credential?.kind !== 'aws') return headers;
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !k.toLowerCase().startsWith('x-amz-')));
}

/** An IPv6 literal goes in brackets in the Host header. */
export function hostHeader(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The client's headers minus hop-by-hop ones, its credentials for the gateway and what the proxy sets itself. */
export function upstreamHeaders(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const out = withoutHopByHop(headers);
  for (const name of DROPPED) delete out[name];
  return out;
}

/** What prompt guards may read about the request: its headers without the client's credentials. */
export function guardHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k === 'authorization' || k === 'cookie' || k === 'x-api-key' || k === 'api-key') continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}
