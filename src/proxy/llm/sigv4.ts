// AWS Signature Version 4 for request headers (the `Authorization` header form). Pure: the time and the
// keys are passed in. Canonical form per AWS's SigV4 documentation; checked against its published test suite.
import { createHash, createHmac } from 'node:crypto';

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials: sent and signed as `x-amz-security-token`. */
  sessionToken?: string;
}

export interface SignInput {
  method: string;
  host: string;
  /** The path as sent on the wire; each segment is URI-encoded once more for the canonical form (all services but S3). */
  path: string;
  /** The query as sent (no `?`); empty for none. */
  query: string;
  /** Headers to sign besides host and x-amz-date (names any case). */
  headers: Record<string, string>;
  body: string | Buffer;
  region: string;
  service: string;
  /** Milliseconds since the epoch. */
  now: number;
}

export interface Signed {
  /** Headers to add to the request: authorization, x-amz-date and (with a session token) x-amz-security-token. */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

const sha256 = (v: string | Buffer): string => createHash('sha256').update(v).digest('hex');
const hmac = (key: Buffer | string, v: string): Buffer => createHmac('sha256', key).update(v).digest();

/** RFC 3986 encoding: unreserved characters stay, every other byte becomes %XX (upper-case hex). */
export function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `20150830T123600Z` */
export function amzDate(now: number): string {
  return new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function canonicalQuery(query: string): string {
  if (!query) return '';
  const pairs = query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=');
      const k = i < 0 ? p : p.slice(0, i),
        v = i < 0 ? '' : p.slice(i + 1);
      const dec = (x: string): string => decodeURIComponent(x.replace(/\+/g, ' '));
      return [uriEncode(dec(k)), uriEncode(dec(v))] as const;
    });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** The signing key for one day, region and service. */
export function signingKey(secretAccessKey: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), service), 'aws4_request');
}

export function signV4(input: SignInput, keys: AwsKeys): Signed {
  const date = amzDate(input.now);
  const day = date.slice(0, 8);
  const all: Record<string, string> = { host: input.host, 'x-amz-date': date };
  if (keys.sessionToken) all['x-amz-security-token'] = keys.sessionToken;
  for (const [k, v] of Object.entries(input.headers)) all[k.toLowerCase()] = v;
  const names = Object.keys(all).sort();
  const canonicalHeaders = names.map((n) => `${n}:${String(all[n]).trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalUri = input.path.split('/').map(uriEncode).join('/') || '/';
  const canonicalRequest = [
    input.method.toUpperCase(),
    canonicalUri,
    canonicalQuery(input.query),
    canonicalHeaders,
    signedHeaders,
    sha256(input.body),
  ].join('\n');
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(keys.secretAccessKey, day, input.region, input.service))
    .update(stringToSign)
    .digest('hex');
  const headers: Record<string, string> = {
    authorization: `AWS4-HMAC-SHA256 Credential=${keys.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
    'x-amz-date': date,
  };
  if (keys.sessionToken) headers['x-amz-security-token'] = keys.sessionToken;
  return { headers, canonicalRequest, stringToSign, signature };
}
