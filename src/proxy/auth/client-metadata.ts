// OAuth Client ID Metadata Documents (CIMD; MCP 2025-11-25 and 2026-07-28 authorization): a client whose
// `client_id` is an https URL publishes its metadata there instead of registering. The gateway fetches the
// document (public addresses only, at most 5 KiB, no redirects, 5 s), checks that it names itself (`client_id`
// equal to the URL, character for character) and is a public client, and keeps it for its Cache-Control
// max-age (between 1 minute and 1 day; 5 minutes without one). A failure is remembered for 30 s so a bad URL
// cannot make the gateway fetch on every request.
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { Agent, request } from '../http/undici.js';
import { AddressRefused, guardedLookup, isPublicAddress, type AddressRule } from '../net/public-address.js';

export const maxDocumentBytes = 5 * 1024;
const failureTtlMs = 30_000;
const maxEntries = 1000;

/** The metadata fields the gateway acts on. */
export interface ClientMetadata {
  clientId: string;
  redirectUris: string[];
}

/** Why a client id cannot be used; the description is safe to show the client (no document contents). */
export class ClientMetadataError extends Error {}

/**
 * True when `clientId` has the shape of a metadata document URL: https, a host, a path other than `/`, no
 * user info, no fragment, no dot segments (draft-ietf-oauth-client-id-metadata-document §3).
 */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://') || !URL.canParse(clientId)) return false;
  const u = new URL(clientId);
  // Dot segments are looked for in the text as sent: URL parsing has already resolved them away.
  const rest = clientId.slice('https://'.length);
  const segments =
    rest
      .slice(Math.max(rest.indexOf('/'), 0))
      .split(/[?#]/)[0]
      ?.split('/') ?? [];
  return (
    u.pathname !== '/' &&
    u.username === '' &&
    u.password === '' &&
    !clientId.includes('#') &&
    !segments.some((s) => ['.', '..'].includes(s.toLowerCase().replaceAll('%2e', '.')))
  );
}

export interface ClientMetadataDocuments {
  /** The checked metadata of a document client id, or a ClientMetadataError. */
  get(clientId: string): Promise<ClientMetadata>;
  close(): Promise<void>;
}

export interface DocumentDeps {
  now: () => number;
  log: Logger;
  /** Which addresses documents may come from (tests allow loopback); default public only. */
  allowAddress?: AddressRule;
  /** Extra trusted CA certificates (PEM) for the documents' TLS, for tests. */
  ca?: string;
}

type Entry = { at: number; ttlMs: number; value: ClientMetadata | ClientMetadataError };

export function createClientMetadataDocuments(deps: DocumentDeps): ClientMetadataDocuments {
  const rule = deps.allowAddress ?? isPublicAddress;
  const dispatcher = new Agent({
    connect: { lookup: guardedLookup(rule), timeout: 5_000, ...(deps.ca ? { ca: deps.ca } : {}) },
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
  });
  const cache = new Map<string, Entry>();
  const inflight = new Map<string, Promise<Entry>>();
  const load = async (url: string): Promise<Entry> => {
    try {
      const { value, ttlMs } = await fetchDocument(url, dispatcher, rule);
      return { at: deps.now(), ttlMs, value };
    } catch (err) {
      const refused = err instanceof AddressRefused || (err as Error).cause instanceof AddressRefused;
      const value =
        err instanceof ClientMetadataError
          ? err
          : new ClientMetadataError(
              refused
                ? 'the client metadata document URL points at an address that is not public'
                : 'the client metadata document is unreachable',
            );
      deps.log.info({ clientId: url, reason: (err as Error).message }, 'client metadata document refused');
      return { at: deps.now(), ttlMs: failureTtlMs, value };
    }
  };
  return {
    async get(clientId) {
      if (!isMetadataDocumentUrl(clientId)) throw new ClientMetadataError('client_id is not a metadata document URL');
      let entry = cache.get(clientId);
      if (!entry || deps.now() - entry.at >= entry.ttlMs) {
        let pending = inflight.get(clientId);
        if (!pending) {
          pending = load(clientId).finally(() => inflight.delete(clientId));
          inflight.set(clientId, pending);
        }
        entry = await pending;
        cache.delete(clientId);
        cache.set(clientId, entry);
        if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      }
      if (entry.value instanceof ClientMetadataError) throw entry.value;
      return entry.value;
    },
    close: () => dispatcher.close(),
  };
}

async function fetchDocument(
  url: string,
  dispatcher: Dispatcher,
  rule: AddressRule,
): Promise<{ value: ClientMetadata; ttlMs: number }> {
  // An address literal is connected to without a lookup, so the guarded lookup never sees it.
  const host = new URL(url).hostname;
  if (isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0 && !rule(host))
    throw new ClientMetadataError('the client metadata document URL points at an address that is not public');
  const res = await request(url, { dispatcher, headers: { accept: 'application/json' } });
  const declared = Number(res.headers['content-length'] ?? 0);
  if (res.statusCode !== 200 || declared > maxDocumentBytes) {
    discard(res.body);
    throw new ClientMetadataError(
      res.statusCode !== 200
        ? `the client metadata document answered HTTP ${res.statusCode}`
        : `the client metadata document is larger than ${maxDocumentBytes} bytes`,
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxDocumentBytes) {
      discard(res.body);
      throw new ClientMetadataError(`the client metadata document is larger than ${maxDocumentBytes} bytes`);
    }
    chunks.push(chunk);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ClientMetadataError('the client metadata document is not JSON');
  }
  return { value: checkDocument(url, doc), ttlMs: maxAgeMs(res.headers['cache-control']) };
}

/** Drops a body not to be read; undici reports the abort as an error event, which nothing else listens for. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

/** The document's metadata, when it names itself and describes a public client with redirect URIs. */
export function checkDocument(url: string, doc: unknown): ClientMetadata {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new ClientMetadataError('the client metadata document is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url)
    throw new ClientMetadataError('the client metadata document does not name its own URL as client_id');
  // A shared secret cannot be published; other client authentication (private_key_jwt) is not checked here,
  // so a document asking for it is refused rather than served as a public client.
  if (d.client_secret !== undefined || d.client_secret_expires_at !== undefined)
    throw new ClientMetadataError('the client metadata document must not contain a client secret');
  if (d.token_endpoint_auth_method !== undefined && d.token_endpoint_auth_method !== 'none')
    throw new ClientMetadataError('only public clients (token_endpoint_auth_method none) are accepted');
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string' && URL.canParse(u)))
    throw new ClientMetadataError('the client metadata document needs redirect_uris, a list of absolute URLs');
  return { clientId: url, redirectUris: uris as string[] };
}

function maxAgeMs(cacheControl: string | string[] | undefined): number {
  const text = Array.isArray(cacheControl) ? cacheControl.join(',') : (cacheControl ?? '');
  if (/\bno-store\b|\bno-cache\b/i.test(text)) return 60_000;
  const m = /\bmax-age=(\d+)/i.exec(text);
  if (!m) return 5 * 60_000;
  return Math.min(Math.max(Number(m[1]) * 1000, 60_000), 24 * 3_600_000);
}
