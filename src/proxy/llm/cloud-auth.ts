// Cloud credentials of LLM providers at request time: AWS SigV4 signing (keys from the IR or the proxy's
// environment), Entra ID client-credentials tokens and Google service-account tokens, each token cached
// until shortly before it expires. Failures say what failed, never a key, secret or token.
import { createHash, createSign } from 'node:crypto';
import type { AiCredential__Output as AiCredential } from '../../ir/gen/gw/ir/v1/AiCredential.js';
import { signV4, type AwsKeys } from './sigv4.js';

export const AZURE_SCOPE = 'https://cognitiveservices.azure.com/.default';
export const GCP_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const AZURE_AUTHORITY = 'https://login.microsoftonline.com';
/** A token is renewed this long before it expires (or at half its life, if that is sooner). */
const RENEW_BEFORE_MS = 5 * 60_000;
const TOKEN_TIMEOUT_MS = 10_000;

/** What is about to be sent: signing covers the method, authority, path, query, content type and body. */
export interface SignableCall {
  method: string;
  /** `host` or `host:port` exactly as the Host header will carry it. */
  authority: string;
  /** Path and query as sent. */
  path: string;
  contentType?: string;
  body: string | Buffer | null;
}

/** Why no credential could be had: `status` for the client (500 misconfigured, 502 token endpoint failed). */
/** `credential_missing`: the proxy's own setup lacks it (500); `credential_unavailable`: its issuer failed (502). */
export class CloudAuthFailure {
  constructor(
    readonly code: 'credential_missing' | 'credential_unavailable',
    readonly message: string,
  ) {}
}

export interface CloudAuthOptions {
  clock: () => number;
  /** The proxy's environment: AWS_* keys, AZURE_AUTHORITY_HOST. */
  env: Record<string, string | undefined>;
}

interface Token {
  value: string;
  renewAt: number;
}

export class CloudAuth {
  private readonly tokens = new Map<string, Token>();
  private readonly inFlight = new Map<string, Promise<Token | CloudAuthFailure>>();

  constructor(private readonly opts: CloudAuthOptions) {}

  /**
   * Headers carrying credential `c` for `call` (signing: `signing` gives the provider's region and
   * service), undefined when `c` is no cloud credential.
   */
  async headers(
    c: AiCredential | null | undefined,
    call: SignableCall,
    signing: { region: string; service: string } | undefined,
    who: string,
  ): Promise<Record<string, string> | CloudAuthFailure | undefined> {
    switch (c?.kind) {
      case 'aws': {
        const a = c.aws;
        const keys = a?.accessKeyId
          ? {
              accessKeyId: a.accessKeyId,
              secretAccessKey: a.secretAccessKey,
              ...(a.sessionToken ? { sessionToken: a.sessionToken } : {}),
            }
          : this.envKeys();
        if (!keys)
          return new CloudAuthFailure(
            'credential_missing',
            `${who} signs with the proxy's AWS environment, and AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not set`,
          );
        const [path = '/', query = ''] = call.path.split('?', 2) as [string?, string?];
        const signed = signV4(
          {
            method: call.method,
            host: call.authority,
            path,
            query,
            headers: call.contentType ? { 'content-type': call.contentType } : {},
            body: call.body ?? '',
            region: a?.region || signing?.region || 'us-east-1',
            service: a?.serviceName || signing?.service || 'bedrock',
            now: this.opts.clock(),
          },
          keys,
        );
        return signed.headers;
      }
      case 'azure': {
        const z = c.azure;
        if (!z) return undefined;
        const authority = (this.opts.env.AZURE_AUTHORITY_HOST || AZURE_AUTHORITY).replace(/\/+$/, '');
        const url = `${authority}/${encodeURIComponent(z.tenantId)}/oauth2/v2.0/token`;
        const form = {
          grant_type: 'client_credentials',
          client_id: z.clientId,
          client_secret: z.clientSecret,
          scope: AZURE_SCOPE,
        };
        return this.bearer(`azure ${url} ${z.clientId} ${digest(z.clientSecret)}`, url, () => form, who);
      }
      case 'gcp': {
        const g = c.gcp;
        if (!g) return undefined;
        const form = (): Record<string, string> => ({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: assertion(g, this.opts.clock()),
        });
        return this.bearer(`gcp ${g.tokenUri} ${g.clientEmail} ${digest(g.privateKey)}`, g.tokenUri, form, who);
      }
      default:
        return undefined;
    }
  }

  private envKeys(): AwsKeys | undefined {
    const { AWS_ACCESS_KEY_ID: id, AWS_SECRET_ACCESS_KEY: secret, AWS_SESSION_TOKEN: token } = this.opts.env;
    return id && secret
      ? { accessKeyId: id, secretAccessKey: secret, ...(token ? { sessionToken: token } : {}) }
      : undefined;
  }

  private async bearer(
    key: string,
    url: string,
    form: () => Record<string, string>,
    who: string,
  ): Promise<Record<string, string> | CloudAuthFailure> {
    const now = this.opts.clock();
    const cached = this.tokens.get(key);
    if (cached && now < cached.renewAt) return { authorization: `Bearer ${cached.value}` };
    // Concurrent requests share one token request.
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = fetchToken(url, form(), now, who).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const got = await pending;
    if (got instanceof CloudAuthFailure) return got;
    this.tokens.set(key, got);
    return { authorization: `Bearer ${got.value}` };
  }
}

const digest = (v: string): string => createHash('sha256').update(v).digest('hex');
const b64url = (v: string | Buffer): string => Buffer.from(v).toString('base64url');

/** A service account's RS256-signed JWT assertion (RFC 7523) for the token endpoint, valid one hour. */
function assertion(g: NonNullable<AiCredential['gcp']>, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  const header = b64url(
    JSON.stringify({ alg: 'RS256', typ: 'JWT', ...(g.privateKeyId ? { kid: g.privateKeyId } : {}) }),
  );
  const claims = b64url(
    JSON.stringify({ iss: g.clientEmail, scope: GCP_SCOPE, aud: g.tokenUri, iat, exp: iat + 3600 }),
  );
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(g.privateKey);
  return `${header}.${claims}.${b64url(signature)}`;
}

async function fetchToken(
  url: string,
  form: Record<string, string>,
  now: number,
  who: string,
): Promise<Token | CloudAuthFailure> {
  const where = `${who}: token endpoint ${new URL(url).host}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
  } catch {
    return new CloudAuthFailure('credential_unavailable', `${where} could not be reached`);
  }
  let json: Record<string, unknown> = {};
  try {
    json = (await res.json()) as Record<string, unknown>;
  } catch {
    /* not JSON: judged by status below */
  }
  // Only the OAuth error code is repeated: descriptions may echo what was sent.
  const code = typeof json.error === 'string' && /^[a-z_]{1,64}$/.test(json.error) ? ` (${json.error})` : '';
  if (!res.ok) return new CloudAuthFailure('credential_unavailable', `${where} answered ${res.status}${code}`);
  const value = json.access_token,
    expiresIn = Number(json.expires_in ?? 3600);
  if (typeof value !== 'string' || value === '')
    return new CloudAuthFailure('credential_unavailable', `${where} answered without an access_token`);
  const lifeMs = (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3600) * 1000;
  return { value, renewAt: now + lifeMs - Math.min(RENEW_BEFORE_MS, lifeMs / 2) };
}
