// `backend.auth.oauthTokenExchange` and `backend.auth.jwtSign`: resolved into the IR credentials the proxy
// acts on per request (proto/gw/ir/v1/backend_identity.proto). Secrets (client secrets, signing keys,
// certificates) are read from the setting object's namespace; keys are parsed here so a key the proxy
// could not sign with refuses the edge now instead of failing every request later. Pure; messages name
// the field and the Secret, never a value. Behaviour: docs/auth.md "Backend identities".
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { read, type Ctx } from '../objects/context.js';
import { nameKey } from '../objects/types.js';
import { serviceBackendTls } from './backend-tls-policy.js';
import type { MergedFields } from '../policies/policy-merge.js';
import { secretData } from '../policies/policy-secrets.js';
import { celCompileProblem, type CelVariable } from '../../cel/data-plane.js';
import { parseDurationMs } from '../../ir/duration.js';
import type { BackendAuth } from '../../api/index.js';
import type { AiCredentialInput, BackendTlsInput } from '../../ir/types.js';
import type { CredentialLocation } from '../../ir/gen/gw/ir/v1/CredentialLocation.js';
import type { OAuthClientCredential } from '../../ir/gen/gw/ir/v1/OAuthClientCredential.js';
import type { TokenExchangeCredential as TokenExchangeCredentialInput } from '../../ir/gen/gw/ir/v1/TokenExchangeCredential.js';

type Exchange = NonNullable<BackendAuth['oauthTokenExchange']>;
type JwtSign = NonNullable<BackendAuth['jwtSign']>;
type CrossAppAccess = NonNullable<BackendAuth['crossAppAccess']>;
type ClientAuth = NonNullable<Exchange['clientAuth']>;
type Location = NonNullable<Exchange['location']>;

/** What the per-request expressions may name: the request and who the client authenticated as. */
export const identityVariables: readonly CelVariable[] = ['request', 'jwt', 'apiKey'];

const TOKEN_TYPES: Record<string, string> = {
  AccessToken: 'urn:ietf:params:oauth:token-type:access_token',
  Jwt: 'urn:ietf:params:oauth:token-type:jwt',
  IdToken: 'urn:ietf:params:oauth:token-type:id_token',
  IdJag: 'urn:ietf:params:oauth:token-type:id-jag',
};
const GRANTS = {
  TokenExchange: 'urn:ietf:params:oauth:grant-type:token-exchange',
  JwtBearer: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
} as const;

/** A token type name or absolute URI as the URI the token endpoint reads. */
export const tokenTypeUri = (t: string): string => TOKEN_TYPES[t] ?? t;

/** A token endpoint's `backendRef` as a URL (ext-auth.ts policyBackendResolver), or why it has none. */
export type EndpointResolver = (
  field: string,
  ref: NonNullable<Exchange['backendRef']>,
) => { url: string; tls?: BackendTlsInput } | { problem: string };

/** Where the setting's pieces come from: Secrets of `ns`, `at(field)` naming `backend.auth.<field>`. */
export interface IdentityScope {
  ctx: Ctx;
  ns: string;
  source: string;
  at: (field: string) => string;
  resolve: EndpointResolver;
}

/** `GwPolicy ns/name`, `GwBackend ns/name provider p` → `ns`: Secrets are read from the setting object's namespace. */
export function namespaceOfSource(source: string): string {
  return /^\S+ ([^/\s]+)\//.exec(source)?.[1] ?? '';
}

/** Where the identity settings of merged fields `m` read their Secrets (the setting object's namespace). */
export function identityScope(
  ctx: Ctx,
  m: MergedFields,
  at: (field: string) => string,
  resolve: EndpointResolver,
): IdentityScope {
  const source = m.provenance['backend.auth']?.source ?? '';
  return { ctx, ns: namespaceOfSource(source), source, at, resolve };
}

/** The auth kinds whose credential the proxy obtains or mints per request. */
export const IDENTITIES = ['oauthTokenExchange', 'jwtSign', 'crossAppAccess'] as const;

/**
 * The per-request identity an auth object (BackendAuth, or ModelBackendAuth without jwtSign and crossAppAccess)
 * sets, as the IR credential; undefined when it sets none; a string says why it cannot be served.
 */
export function identityCredential(
  s: IdentityScope,
  auth: Pick<BackendAuth, (typeof IDENTITIES)[number]>,
): AiCredentialInput | string | undefined {
  if (auth.jwtSign) return jwtSignCredential(s, auth.jwtSign);
  if (auth.crossAppAccess) return crossAppAccessCredential(s, auth.crossAppAccess);
  if (auth.oauthTokenExchange) return tokenExchangeCredential(s, auth.oauthTokenExchange);
  return undefined;
}

/** The IR credential of `oauthTokenExchange`, or why it cannot be served. */
export function tokenExchangeCredential(s: IdentityScope, e: Exchange): AiCredentialInput | string {
  const c = exchangeStep(s, e, 'oauthTokenExchange');
  return typeof c === 'string' ? c : { kind: 'tokenExchange', source: s.source, tokenExchange: c };
}

/**
 * The IR credential of `crossAppAccess`: a token exchange at the identity provider asking for an ID-JAG
 * for `audience`, then a jwt-bearer grant with it at the resource's authorization server.
 */
export function crossAppAccessCredential(s: IdentityScope, x: CrossAppAccess): AiCredentialInput | string {
  const idp = exchangeStep(
    s,
    {
      ...x.identityProvider,
      grantType: 'TokenExchange',
      subjectToken: { ...x.subjectToken, tokenType: x.subjectToken?.tokenType ?? 'IdToken' },
      audiences: [x.audience],
      ...(x.resources ? { resources: x.resources } : {}),
      ...(x.scopes ? { scopes: x.scopes } : {}),
      requestedTokenType: 'IdJag',
      ...(x.cache ? { cache: x.cache } : {}),
    },
    'crossAppAccess.identityProvider',
  );
  if (typeof idp === 'string') return idp;
  const resourceServer = exchangeStep(
    s,
    {
      ...x.resourceAuthorizationServer,
      grantType: 'JwtBearer',
      ...(x.accessTokenScopes ? { scopes: x.accessTokenScopes } : {}),
      ...(x.cache ? { cache: x.cache } : {}),
    },
    'crossAppAccess.resourceAuthorizationServer',
  );
  if (typeof resourceServer === 'string') return resourceServer;
  return { kind: 'crossAppAccess', source: s.source, crossAppAccess: { identityProvider: idp, resourceServer } };
}

function exchangeStep(s: IdentityScope, e: Exchange, prefix: string): TokenExchangeCredentialInput | string {
  const at = (f: string): string => s.at(`${prefix}.${f}`);
  const grant = e.grantType ?? 'TokenExchange';
  if (grant === 'JwtBearer' && e.actorToken) return `${at('actorToken')}: only applies to grantType TokenExchange`;
  const base = endpointUrl(s, e, at);
  if (base.url === undefined) return base.problem;
  for (const [field, cel] of celFields(e)) {
    const why = celCompileProblem(cel, identityVariables);
    if (why) return `${at(field)}: ${why}`;
  }
  const client = e.clientAuth ? clientCredential(s, e.clientAuth, at) : undefined;
  if (typeof client === 'string') return client;
  const ttl = parseDurationMs(e.cache?.inMemory?.defaultTtl ?? '300s');
  if (ttl === undefined || ttl < 1000) return `${at('cache.inMemory.defaultTtl')}: must be a duration of 1s or more`;
  return {
    tokenUrl: base.url,
    grantType: GRANTS[grant],
    subjectSource: e.subjectToken?.source ?? '',
    subjectTokenType: tokenTypeUri(e.subjectToken?.tokenType ?? 'AccessToken'),
    actorSource: e.actorToken?.source ?? '',
    actorTokenType: e.actorToken ? tokenTypeUri(e.actorToken.tokenType ?? 'AccessToken') : '',
    mayActRequired: e.actorToken?.mayAct === 'Required',
    audiences: [...(e.audiences ?? [])],
    scopes: [...(e.scopes ?? [])],
    resources: [...(e.resources ?? [])],
    requestedTokenType: e.requestedTokenType ? tokenTypeUri(e.requestedTokenType) : '',
    additionalParams: { ...(e.additionalParams ?? {}) },
    ...(client ? { client } : {}),
    ...(e.location ? { location: location(e.location) } : {}),
    cacheMaxEntries: e.cache?.inMemory?.maxEntries ?? 8192,
    cacheDefaultTtlSeconds: Math.floor(ttl / 1000),
    ...(base.tls ? { tls: base.tls } : {}),
  };
}

/** The IR credential of `jwtSign`, or why it cannot be served. */
export function jwtSignCredential(s: IdentityScope, j: JwtSign): AiCredentialInput | string {
  const at = (f: string): string => s.at(`jwtSign.${f}`);
  const alg = j.alg ?? 'RS256';
  const key = signingKey(s, j.signingKeyRef, alg, at('signingKeyRef'));
  if (typeof key !== 'object') return key;
  const claims = j.claims ?? {};
  const reserved = ['iat', 'exp', 'nbf'].find((c) => c in claims);
  if (reserved) return `${at('claims')}: must not set the reserved claim ${reserved}; the proxy sets iat and exp`;
  const ttl = parseDurationMs(j.ttl ?? '300s');
  if (ttl === undefined || ttl < 1000) return `${at('ttl')}: must be a duration of 1s or more`;
  return {
    kind: 'jwtSign',
    source: s.source,
    jwtSign: {
      signingKeyPem: key.pem,
      alg,
      kid: j.kid ?? '',
      claimsJson: JSON.stringify(claims),
      ttlSeconds: Math.floor(ttl / 1000),
      ...(j.location ? { location: location(j.location) } : {}),
    },
  };
}

/** The TLS of the BackendTLSPolicy covering the Service port a token endpoint's backendRef names, or why it cannot be read. */
function serviceTls(s: IdentityScope, ref: NonNullable<Exchange['backendRef']>): { tls?: BackendTlsInput } | string {
  if ((ref.group ?? '') !== '' || (ref.kind ?? 'Service') !== 'Service') return {};
  const svc = read(s.ctx, 'Service', nameKey(ref.namespace ?? s.ns, ref.name ?? ''));
  if (!svc) return {};
  const tls = serviceBackendTls(s.ctx, svc, ref.port ?? 0, '', () => undefined);
  if (!tls.ok) return tls.message;
  return tls.tls ? { tls: tls.tls } : {};
}

type Endpoint = { url: string; tls?: BackendTlsInput; problem?: undefined } | { url?: undefined; problem: string };

/**
 * The token endpoint's URL, and for a backendRef the backend's TLS (its own `policies.tls`, or the Service port's
 * BackendTLSPolicy): token requests carry client secrets and tokens, so they go with that TLS or not at all.
 */
function endpointUrl(s: IdentityScope, e: Exchange, at: (f: string) => string): Endpoint {
  let origin = e.url;
  let tls: BackendTlsInput | undefined;
  if (e.backendRef) {
    const r = s.resolve('backend.auth', e.backendRef);
    if ('problem' in r) return { problem: `${at('backendRef')}: ${r.problem}` };
    const svc = serviceTls(s, e.backendRef);
    if (typeof svc === 'string') return { problem: `${at('backendRef')}: ${svc}` };
    tls = (r.tls as BackendTlsInput | undefined) ?? svc.tls;
    origin = tls ? r.url.replace(/^http:/, 'https:') : r.url;
  }
  if (origin === undefined) return { problem: `${at('url')}: one of url and backendRef is needed` };
  if (!/^https?:\/\//i.test(origin)) return { problem: `${at('url')}: must be an http:// or https:// URL` };
  const u = new URL(origin);
  // `path` (default `/`) is appended to whatever path the URL already has.
  const path = e.path && e.path !== '/' ? e.path : '';
  return { url: `${u.origin}${u.pathname.replace(/\/+$/, '')}${path}` || `${u.origin}/`, ...(tls ? { tls } : {}) };
}

function celFields(e: Exchange): [string, string][] {
  const out: [string, string][] = [];
  if (e.subjectToken?.source) out.push(['subjectToken.source', e.subjectToken.source]);
  if (e.actorToken?.source) out.push(['actorToken.source', e.actorToken.source]);
  for (const k of Object.keys(e.additionalParams ?? {}).sort())
    out.push([`additionalParams.${k}`, e.additionalParams?.[k] ?? '']);
  return out;
}

function clientCredential(s: IdentityScope, c: ClientAuth, at: (f: string) => string): OAuthClientCredential | string {
  const method = c.method ?? 'ClientSecretBasic';
  if (method === 'PrivateKeyJwt') {
    const p = c.privateKeyJwt;
    if (!p) return `${at('clientAuth.privateKeyJwt')}: is required when method is PrivateKeyJwt`;
    const alg = p.alg ?? 'RS256';
    const key = signingKey(s, p.signingKeyRef, alg, at('clientAuth.privateKeyJwt.signingKeyRef'));
    if (typeof key !== 'object') return key;
    let certificatePem = '';
    if (p.certificateRef) {
      const cert = secretValue(s, p.certificateRef, 'tls.crt', at('clientAuth.privateKeyJwt.certificateRef'));
      if ('problem' in cert) return cert.problem;
      try {
        if (!new X509Certificate(cert.value).checkPrivateKey(key.key))
          return `${at('clientAuth.privateKeyJwt.certificateRef')}: the certificate is not for the signing key`;
      } catch {
        return `${at('clientAuth.privateKeyJwt.certificateRef')}: is not a PEM certificate`;
      }
      certificatePem = cert.value;
    }
    return {
      clientId: c.clientId,
      privateKeyJwt: {
        signingKeyPem: key.pem,
        alg,
        kid: p.kid ?? '',
        audience: p.assertionAudience,
        certificatePem,
        certificateHeader: p.certificateHeader ?? '',
      },
    };
  }
  if (!c.secretRef) return `${at('clientAuth.secretRef')}: is required when method is ${method}`;
  const secret = secretValue(s, c.secretRef, 'clientSecret', at('clientAuth.secretRef'));
  if ('problem' in secret) return secret.problem;
  return method === 'ClientSecretPost'
    ? { clientId: c.clientId, postSecret: secret.value }
    : { clientId: c.clientId, basicSecret: secret.value };
}

function secretValue(
  s: IdentityScope,
  ref: { name: string; key?: string },
  defaultKey: string,
  field: string,
): { value: string } | { problem: string } {
  const dataKey = ref.key ?? defaultKey;
  const data = secretData(s.ctx, s.ns, ref.name);
  if (!data) return { problem: `${field}: Secret ${s.ns}/${ref.name} does not exist` };
  const value = (data[dataKey] ?? '').trim();
  if (!value) return { problem: `${field}: Secret ${s.ns}/${ref.name} has no non-empty key ${dataKey}` };
  return { value };
}

/** A PEM private key from a Secret, checked against the algorithm that will sign with it. */
function signingKey(
  s: IdentityScope,
  ref: { name: string; key?: string },
  alg: string,
  field: string,
): { pem: string; key: KeyObject } | string {
  const v = secretValue(s, ref, 'signingKey', field);
  if ('problem' in v) return v.problem;
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: v.value, format: 'pem' });
  } catch {
    return `${field}: Secret ${s.ns}/${ref.name} key ${ref.key ?? 'signingKey'} is not a PEM private key`;
  }
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const fits =
    alg.startsWith('RS') || alg.startsWith('PS')
      ? type === 'rsa'
      : (alg === 'ES256' && curve === 'prime256v1') || (alg === 'ES384' && curve === 'secp384r1');
  if (!fits) return `${field}: alg ${alg} cannot sign with this ${type ?? 'unknown'} key${curve ? ` (${curve})` : ''}`;
  return { pem: key.export({ format: 'pem', type: 'pkcs8' }).toString(), key };
}

/** An AuthorizationLocation as the IR's CredentialLocation (header names lower-cased). */
export function location(l: Location): CredentialLocation {
  return {
    header: l.header?.name.toLowerCase() ?? '',
    prefix: l.header?.prefix ?? '',
    queryParameter: l.queryParameter?.name ?? '',
    cookie: l.cookie?.name ?? '',
  };
}
