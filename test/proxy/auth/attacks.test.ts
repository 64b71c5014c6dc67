// Hostile and broken bearer tokens against the real verifier, keys served over HTTP on loopback.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { base64url, importJWK, SignJWT, exportSPKI, type CryptoKey } from 'jose';
import { makeSigningKey, type SigningKey } from '../../support/oidc/provider.js';
import { startJwksServer, type JwksServer } from '../../support/oidc/jwks-server.js';
import { startGateway, type TestGateway } from './gateway.js';

const issuer = 'https://issuer.test/tenant';
const audience = 'https://mcp.test/mcp';
const cooldownMs = 30_000;

let gw: TestGateway;
let jwks: JwksServer;
let key: SigningKey;
let rogue: SigningKey;
let privateKey: CryptoKey;
let clock = Date.parse('2026-01-01T00:00:00Z');
const sec = () => Math.floor(clock / 1000);

async function sign(
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
  with_: CryptoKey = privateKey,
  kid = key.kid,
): Promise<string> {
  return new SignJWT({ iss: issuer, aud: audience, sub: 'user-1', iat: sec(), exp: sec() + 300, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt', ...header })
    .sign(with_);
}

const enc = (o: unknown) => base64url.encode(JSON.stringify(o));

const crafts: Record<string, () => Promise<string>> = {
  algNone: () =>
    Promise.resolve(`${enc({ alg: 'none', typ: 'JWT' })}.${enc({ iss: issuer, aud: audience, exp: sec() + 300 })}.`),
  hmacWithPublicKey: async () => {
    const pem = await exportSPKI((await importJWK(key.publicJwk, 'RS256')) as CryptoKey);
    return new SignJWT({ iss: issuer, aud: audience, exp: sec() + 300 })
      .setProtectedHeader({ alg: 'HS256', kid: key.kid })
      .sign(new TextEncoder().encode(pem));
  },
  unknownKid: async () => sign({}, {}, (await importJWK(rogue.privateJwk, 'RS256')) as CryptoKey, 'rogue-kid'),
  kidTraversal: async () =>
    sign({}, {}, (await importJWK(rogue.privateJwk, 'RS256')) as CryptoKey, '../../../../etc/passwd'),
  kidUrl: async () =>
    sign(
      {},
      { jku: 'http://127.0.0.1:1/evil.json', x5u: 'http://127.0.0.1:1/evil.pem' },
      (await importJWK(rogue.privateJwk, 'RS256')) as CryptoKey,
      'http://127.0.0.1:1/evil.json',
    ),
  tamperedPayload: async () => {
    const [h, , s] = (await sign({})).split('.');
    return `${h}.${enc({ iss: issuer, aud: audience, sub: 'admin', exp: sec() + 300 })}.${s}`;
  },
  expired: () => sign({ exp: sec() - 120, iat: sec() - 900 }),
  nbfFuture: () => sign({ nbf: sec() + 600 }),
  noExp: async () =>
    new SignJWT({ iss: issuer, aud: audience }).setProtectedHeader({ alg: 'RS256', kid: key.kid }).sign(privateKey),
  wrongIss: () => sign({ iss: 'https://evil.test/tenant' }),
  wrongAud: () => sign({ aud: 'https://other.test/mcp' }),
  oneSegment: () => Promise.resolve('abcdef'),
  fourSegments: async () => `${await sign({})}.extra`,
  notBase64: () => Promise.resolve('!!!.@@@.###'),
  headerNotJson: () => Promise.resolve(`${base64url.encode('not json')}.${enc({})}.c2ln`),
  huge: () => sign({ padding: 'x'.repeat(16 * 1024) }),
};

interface Case {
  name: string;
  craft: string;
  description: string;
}
const cases = JSON.parse(readFileSync(new URL('./testdata/token-attacks.json', import.meta.url), 'utf8')) as Case[];

async function call(token: string | undefined, scheme = 'Bearer') {
  const res = await fetch(`${gw.origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token !== undefined ? { authorization: `${scheme} ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const text = await res.text();
  return { status: res.status, text, challenge: res.headers.get('www-authenticate') };
}

beforeAll(async () => {
  key = await makeSigningKey('key-1');
  rogue = await makeSigningKey('rogue');
  privateKey = (await importJWK(key.privateJwk, 'RS256')) as CryptoKey;
  jwks = await startJwksServer([key.publicJwk]);
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
  await jwks.close();
});

function configure(mode: 'strict' | 'optional' | 'permissive' = 'strict'): void {
  gw.configure(
    { mode, issuer, audiences: [audience], jwks: jwks.url, resourceMetadata: { resource: audience } },
    { now: () => clock, jwksCooldownMs: cooldownMs },
  );
}

describe('token attacks in strict mode', () => {
  beforeAll(() => configure());

  it('accepts a well-formed token signed by the published key', async () => {
    expect((await call(await sign({}))).status).toBe(200);
  });

  for (const c of cases) {
    it(`rejects ${c.name} with 401 invalid_token`, async () => {
      const r = await call(await crafts[c.craft]!());
      expect(r.status).toBe(401);
      expect(JSON.parse(r.text)).toEqual({ error: 'invalid_token', error_description: c.description });
      expect(r.challenge).toBe(
        `Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="${c.description}"`,
      );
      // Nothing about keys leaks: no kid, no key parameters.
      for (const secretish of [key.kid, 'rogue-kid', 'passwd', 'evil', String(key.publicJwk.n).slice(0, 16)])
        expect(r.text + r.challenge).not.toContain(secretish);
    });
  }

  it('never fetches keys from a URL named in the token', () => {
    expect(new Set(gw.upstream.map((u) => u.url))).toEqual(new Set([jwks.url]));
  });

  it('accepts a token that expired within the clock skew', async () => {
    expect((await call(await sign({ exp: sec() - 10 }))).status).toBe(200);
  });

  it('refuses a cached token once it expires', async () => {
    const token = await sign({ exp: sec() + 60 });
    expect((await call(token)).status).toBe(200);
    clock += 120_000;
    const r = await call(token);
    expect(r.status).toBe(401);
    expect(JSON.parse(r.text).error_description).toBe('The access token expired');
  });

  it('treats a non-Bearer Authorization header as no token', async () => {
    const r = await call('dXNlcjpwYXNz', 'Basic');
    expect(r.status).toBe(401);
    expect(JSON.parse(r.text)).toEqual({ error: 'unauthorized', error_description: 'JWT token required' });
  });

  it('accepts the Bearer scheme case-insensitively', async () => {
    expect((await call(await sign({}), 'bearer')).status).toBe(200);
  });
});

describe('signing-key endpoint behaviour', () => {
  beforeEach(() => {
    clock += 10 * 60_000;
    jwks.setDown(false);
    jwks.setKeys([key.publicJwk]);
    configure();
  });

  it('refetches keys at most once per cooldown however many unknown kids arrive', async () => {
    expect((await call(await sign({}))).status).toBe(200);
    const before = jwks.hits;
    for (let i = 0; i < 5; i++) expect((await call(await crafts.unknownKid!())).status).toBe(401);
    expect(jwks.hits - before).toBeLessThanOrEqual(1);
  });

  it('answers 401, not 500, while the key endpoint is down, and recovers when it returns', async () => {
    jwks.setDown(true);
    const token = await sign({});
    const r = await call(token);
    expect(r.status).toBe(401);
    expect(JSON.parse(r.text)).toEqual({
      error: 'invalid_token',
      error_description: 'The signing keys needed to verify the access token are unavailable',
    });
    jwks.setDown(false);
    clock += cooldownMs + 1;
    expect((await call(token)).status).toBe(200);
  });

  it('picks up rotated keys without a restart', async () => {
    expect((await call(await sign({}))).status).toBe(200);
    const next = await makeSigningKey('key-2');
    jwks.setKeys([next.publicJwk]);
    clock += cooldownMs + 1;
    const rotated = await sign({}, {}, (await importJWK(next.privateJwk, 'RS256')) as CryptoKey, 'key-2');
    expect((await call(rotated)).status).toBe(200);
  });
});

describe('optional and permissive modes', () => {
  beforeEach(() => jwks.setKeys([key.publicJwk]));

  it('lets a request without a token through in optional mode but still rejects a bad token', async () => {
    configure('optional');
    expect((await call(undefined)).status).toBe(200);
    expect((await call(await crafts.wrongIss!())).status).toBe(401);
    expect((await call(await sign({}))).status).toBe(200);
  });

  it('never rejects in permissive mode', async () => {
    configure('permissive');
    expect((await call(undefined)).status).toBe(200);
    expect((await call(await crafts.expired!())).status).toBe(200);
  });
});

describe('inline signing keys (controller-delivered)', () => {
  it('verifies against the inline key set without fetching anything', async () => {
    gw.configure(
      {
        mode: 'strict',
        issuer,
        audiences: [audience],
        jwksInline: JSON.stringify({ keys: [key.publicJwk] }),
        resourceMetadata: { resource: audience },
      },
      { now: () => clock },
    );
    const before = gw.upstream.length;
    expect((await call(await sign({}))).status).toBe(200);
    expect((await call(await crafts.unknownKid!())).status).toBe(401);
    expect(gw.upstream.length).toBe(before);
  });
});
