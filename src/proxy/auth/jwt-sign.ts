// JWTs the proxy signs itself: `backend.auth.jwtSign` assertions for upstreams (reused until shortly
// before they expire) and RFC 7523 client assertions for token endpoints (`private_key_jwt`, with an
// optional `x5c` or `x5t#S256` certificate header). Keys arrive as PEM in the IR and are parsed once
// per credential. Nothing here logs a key or a token.
import { X509Certificate, createHash, createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import type { JWTHeaderParameters } from 'jose';
import { SignJWT } from 'jose/jwt/sign';
import type { ClientAssertionKey__Output as ClientAssertionKey } from '../../ir/gen/gw/ir/v1/ClientAssertionKey.js';
import type { JwtSignCredential__Output as JwtSignCredential } from '../../ir/gen/gw/ir/v1/JwtSignCredential.js';
import { tokenLiving, type CachedToken } from './token-cache.js';

/** How long a client assertion is valid: long enough for one token request. */
const ASSERTION_LIFE_S = 60;

const keys = new WeakMap<object, KeyObject>();

function keyOf(owner: { signingKeyPem: string }): KeyObject {
  let k = keys.get(owner);
  if (!k) {
    k = createPrivateKey({ key: owner.signingKeyPem, format: 'pem' });
    keys.set(owner, k);
  }
  return k;
}

async function sign(
  claims: Record<string, unknown>,
  header: Omit<JWTHeaderParameters, 'alg'>,
  alg: string,
  key: KeyObject,
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ ...header, alg, typ: 'JWT' }).sign(key);
}

const minted = new WeakMap<JwtSignCredential, CachedToken>();

/** The `jwtSign` token for `now`: the last one while it is not due for renewal, else a new one. */
export async function signedAssertion(c: JwtSignCredential, now: number): Promise<string> {
  const last = minted.get(c);
  if (last && now < last.renewAt) return last.value;
  const iat = Math.floor(now / 1000);
  const claims = { ...(JSON.parse(c.claimsJson || '{}') as Record<string, unknown>), iat, exp: iat + c.ttlSeconds };
  const token = await sign(claims, c.kid ? { kid: c.kid } : {}, c.alg || 'RS256', keyOf(c));
  minted.set(c, tokenLiving(token, now, c.ttlSeconds * 1000));
  return token;
}

/** An RFC 7523 client assertion for `clientId` at the token endpoint this key names as audience. */
export async function clientAssertion(clientId: string, k: ClientAssertionKey, now: number): Promise<string> {
  const iat = Math.floor(now / 1000);
  const header: Omit<JWTHeaderParameters, 'alg'> = k.kid ? { kid: k.kid } : {};
  if (k.certificatePem && k.certificateHeader) {
    const chain = certificatesDer(k.certificatePem);
    if (k.certificateHeader === 'x5c') header.x5c = chain.map((d) => d.toString('base64'));
    else if (chain[0]) header['x5t#S256'] = createHash('sha256').update(chain[0]).digest('base64url');
  }
  const claims = { iss: clientId, sub: clientId, aud: k.audience, jti: randomUUID(), iat, exp: iat + ASSERTION_LIFE_S };
  return sign(claims, header, k.alg || 'RS256', keyOf(k));
}

const chains = new Map<string, Buffer[]>();

/** The DER of each certificate of a PEM chain, leaf first. */
function certificatesDer(pem: string): Buffer[] {
  let out = chains.get(pem);
  if (!out) {
    const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    out = blocks.map((b) => new X509Certificate(b).raw);
    if (chains.size > 64) chains.clear();
    chains.set(pem, out);
  }
  return out;
}
