// Gateway-side OAuth endpoints: dynamic client registration (RFC 7591) and, for IdpF, the authorize
// and token proxies that strip `resource` and attach the gateway's own client secret.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ClientMetadataError, isMetadataDocumentUrl, type ClientMetadataDocuments } from './client-metadata.js';
import { BodyError, corsHeaders, readBody, sendError, sendJson } from './http.js';
import type { ProviderPlan } from './provider.js';
import type { McpAuthSettings } from './settings.js';

export interface EndpointDeps {
  settings: McpAuthSettings;
  plan: ProviderPlan;
  fetch: typeof fetch;
  now: () => number;
  log: Logger;
  upstreamEndpoint(name: 'authorization_endpoint' | 'token_endpoint'): Promise<string>;
  /** Client ID Metadata Documents, where the gateway proxies authorize and token (IdpF). */
  documents?: ClientMetadataDocuments;
}

/**
 * For a client id that is a metadata document URL: checks the document and the redirect URI (it must be listed;
 * authorize and the authorization_code grant must send one) and answers the configured clientId to send the
 * provider in its place, or why the client cannot be used. Other client ids pass unchanged.
 */
async function providerClientId(
  d: EndpointDeps,
  params: URLSearchParams,
  redirectRequired: boolean,
): Promise<{ clientId: string | null } | { refused: string }> {
  const clientId = params.get('client_id');
  if (!d.documents || clientId === null || !isMetadataDocumentUrl(clientId)) return { clientId };
  // What is checked must be what the provider gets: a repeated parameter could carry a second, unchecked value.
  if (params.getAll('client_id').length > 1 || params.getAll('redirect_uri').length > 1)
    return { refused: 'client_id and redirect_uri must not be repeated' };
  const redirectUri = params.get('redirect_uri');
  if (redirectRequired && redirectUri === null)
    return { refused: 'redirect_uri is required with a client metadata document' };
  try {
    const doc = await d.documents.get(clientId);
    if (redirectUri !== null && !doc.redirectUris.includes(redirectUri))
      return { refused: 'redirect_uri is not listed in the client metadata document' };
  } catch (err) {
    if (err instanceof ClientMetadataError) return { refused: err.message };
    throw err;
  }
  return { clientId: d.settings.clientId ?? null };
}

/** Removes every occurrence of the configured secret from text that leaves the gateway. */
function scrub(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

function stringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

export async function handleRegistration(req: IncomingMessage, res: ServerResponse, d: EndpointDeps): Promise<void> {
  const meta = await readClientMetadata(req, res);
  if (!meta) return;
  const { clientId } = d.settings;
  if (clientId || d.plan.kind === 'idpf') {
    sendJson(res, 201, registrationAnswer(meta, clientId, d.now()), corsHeaders);
    return;
  }
  if (d.plan.kind !== 'idpd') {
    sendError(
      res,
      'invalid_client_metadata',
      'Dynamic client registration is not available: configure clientId',
      corsHeaders,
    );
    return;
  }
  await relay(
    res,
    d,
    d.plan.registrationUrl,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(meta),
    },
    'client registration',
  );
}

/** The registration request's client metadata (RFC 7591 §2), or undefined once the error is answered. */
async function readClientMetadata(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Record<string, unknown> | undefined> {
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req));
  } catch (err) {
    sendError(
      res,
      err instanceof BodyError ? 'payload_too_large' : 'invalid_client_metadata',
      err instanceof BodyError ? err.message : 'The request body must be a JSON object',
      corsHeaders,
    );
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    sendError(res, 'invalid_client_metadata', 'The request body must be a JSON object', corsHeaders);
    return undefined;
  }
  const meta = body as Record<string, unknown>;
  if (
    meta.redirect_uris !== undefined &&
    (!stringList(meta.redirect_uris) || meta.redirect_uris.some((u) => !URL.canParse(u)))
  ) {
    sendError(res, 'invalid_redirect_uri', 'redirect_uris must be a list of absolute URLs', corsHeaders);
    return undefined;
  }
  for (const f of ['grant_types', 'response_types'] as const) {
    if (meta[f] !== undefined && !stringList(meta[f])) {
      sendError(res, 'invalid_client_metadata', `${f} must be a list of strings`, corsHeaders);
      return undefined;
    }
  }
  return meta;
}

const echoedMetadata = [
  'client_name',
  'redirect_uris',
  'scope',
  'client_uri',
  'logo_uri',
  'contacts',
  'software_id',
  'software_version',
];

/** Answers for the provider: clients stay public (PKCE) even when the gateway's registration is confidential. */
function registrationAnswer(
  meta: Record<string, unknown>,
  clientId: string | undefined,
  now: number,
): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  for (const f of echoedMetadata) if (meta[f] !== undefined) echo[f] = meta[f];
  return {
    ...echo,
    client_id: clientId,
    client_id_issued_at: Math.floor(now / 1000),
    grant_types: meta.grant_types ?? ['authorization_code', 'refresh_token'],
    response_types: meta.response_types ?? ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/**
 * Redirects to the provider's authorize endpoint with `resource` removed (IdpF rejects it next to v2 scopes) and
 * a metadata-document client id replaced by the configured one. A client that cannot be used is told so here,
 * never redirected (RFC 6749 §4.1.2.1).
 */
export async function handleAuthorize(req: IncomingMessage, res: ServerResponse, d: EndpointDeps): Promise<void> {
  let target: URL;
  try {
    target = new URL(await d.upstreamEndpoint('authorization_endpoint'));
  } catch {
    sendError(res, 'temporarily_unavailable', 'The identity provider metadata is unavailable', corsHeaders);
    return;
  }
  const incoming = new URL(req.url ?? '/', 'http://gateway');
  const q = incoming.searchParams;
  const client = await providerClientId(d, q, true);
  if ('refused' in client) {
    sendError(res, 'invalid_request', `client_id: ${client.refused}`, corsHeaders);
    return;
  }
  for (const [k, v] of q) {
    if (k === 'resource') continue;
    target.searchParams.append(k, k === 'client_id' ? (client.clientId ?? v) : v);
  }
  res.writeHead(302, { location: target.toString(), 'cache-control': 'no-store' });
  res.end();
}

const secretGrants = new Set(['authorization_code', 'refresh_token']);

export async function handleToken(req: IncomingMessage, res: ServerResponse, d: EndpointDeps): Promise<void> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    sendError(res, 'invalid_request', 'The token request must be application/x-www-form-urlencoded', corsHeaders);
    return;
  }
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(await readBody(req));
  } catch (err) {
    sendError(
      res,
      err instanceof BodyError ? 'payload_too_large' : 'invalid_request',
      (err as Error).message,
      corsHeaders,
    );
    return;
  }
  form.delete('resource');
  const client = await providerClientId(d, form, form.get('grant_type') === 'authorization_code');
  if ('refused' in client) {
    sendError(res, 'invalid_client', `client_id: ${client.refused}`, corsHeaders);
    return;
  }
  if (client.clientId !== null) form.set('client_id', client.clientId);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  const auth = req.headers.authorization;
  if (auth) headers.authorization = auth;
  const { clientId, clientSecret } = d.settings;
  const hasOwnAuth = auth !== undefined || form.has('client_secret') || form.has('client_assertion');
  if (
    clientSecret &&
    clientId &&
    !hasOwnAuth &&
    form.get('client_id') === clientId &&
    secretGrants.has(form.get('grant_type') ?? '')
  ) {
    form.set('client_secret', clientSecret);
  }
  let target: string;
  try {
    target = await d.upstreamEndpoint('token_endpoint');
  } catch {
    sendError(res, 'temporarily_unavailable', 'The identity provider metadata is unavailable', corsHeaders);
    return;
  }
  await relay(res, d, target, { method: 'POST', headers, body: form.toString() }, 'token');
}

async function relay(
  res: ServerResponse,
  d: EndpointDeps,
  url: string,
  init: RequestInit,
  what: string,
): Promise<void> {
  let upstream: Response;
  let text: string;
  try {
    upstream = await d.fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    text = await upstream.text();
  } catch (err) {
    d.log.warn(
      { upstream: new URL(url).origin, err: scrub((err as Error).message, d.settings.clientSecret) },
      `${what} request to the identity provider failed`,
    );
    sendError(res, 'temporarily_unavailable', `The identity provider did not answer the ${what} request`, corsHeaders);
    return;
  }
  const headers: Record<string, string> = {
    ...corsHeaders,
    'cache-control': 'no-store',
    'content-type': upstream.headers.get('content-type') ?? 'application/json',
  };
  d.log.debug({ upstream: new URL(url).origin, status: upstream.status }, `${what} request relayed`);
  const body = scrub(text, d.settings.clientSecret);
  res.writeHead(upstream.status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
