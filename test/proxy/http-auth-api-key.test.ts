// GwPolicy traffic.apiKeyAuthentication on forwarded HTTP routes: keys from the policy's Secret, carried as
// SHA-256 only; translated from manifests and served by a real runtime to a real node:http upstream.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seen, startAuthBench, type AuthBench } from './http-auth-harness.js';

const keyA = 'sk-team-a-0f8e7d6c5b4a';
const keyB = 'sk-team-b-9a8b7c6d5e4f';
// Object entries (seed 001): `key` in clear, or `keyHash` sha256:<hex>, each with metadata for CEL's `apiKey`.
const keyC = 'sk-team-c-1234567890ab';
const keyD = 'sk-team-d-ba0987654321';
const entryC = JSON.stringify({ key: keyC, metadata: { group: 'eng', tier: 2 } });
const entryD = JSON.stringify({
  keyHash: `sha256:${createHash('sha256').update(keyD).digest('hex')}`,
  metadata: { group: 'ops' },
});

describe('API key authentication on forwarded HTTP routes', () => {
  let bench: AuthBench;
  const get = (path: string, headers: Record<string, string> = {}) => bench.get(path, headers);

  beforeAll(async () => {
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    const secret = `apiVersion: v1
kind: Secret
metadata: {name: api-keys, namespace: default}
data: {team-a: ${b64(keyA)}, team-b: ${b64(`${keyB}\n`)}, team-c: ${b64(entryC)}, team-d: ${b64(entryD)}}
`;
    bench = await startAuthBench(
      [
        { name: 'strict', traffic: '{apiKeyAuthentication: {secretRef: {name: api-keys}}}' },
        { name: 'optional', traffic: '{apiKeyAuthentication: {mode: Optional, secretRef: {name: api-keys}}}' },
        {
          name: 'query',
          traffic: '{apiKeyAuthentication: {secretRef: {name: api-keys}, location: {queryParameter: {name: key}}}}',
        },
        {
          name: 'xkey',
          traffic: '{apiKeyAuthentication: {secretRef: {name: api-keys}, location: {header: {name: X-Api-Key}}}}',
        },
        { name: 'selector', traffic: '{apiKeyAuthentication: {secretSelector: {matchLabels: {app: keys}}}}' },
        {
          name: 'eng',
          traffic: `{apiKeyAuthentication: {secretRef: {name: api-keys}}, authorization: {policy: {matchExpressions: ['apiKey.group == "eng" && apiKey.tier >= 2']}}}`,
        },
      ],
      secret,
    );
  });

  afterAll(async () => {
    await bench?.close();
  });

  it('carries only SHA-256 hashes of the keys in the IR', () => {
    expect(bench.ir).not.toContain(keyA);
    expect(bench.ir).not.toContain(keyB);
    expect(bench.ir).not.toContain(keyC);
    expect(bench.ir).toContain('keySha256');
  });

  it('accepts object entries by key or by keyHash', async () => {
    expect((await get('/strict/x', { authorization: `Bearer ${keyC}` })).status).toBe(200);
    expect((await get('/strict/x', { authorization: `Bearer ${keyD}` })).status).toBe(200);
    // The JSON text of an entry is not a key.
    expect((await get('/strict/x', { authorization: `Bearer ${entryC}` })).status).toBe(401);
  });

  it("hands the entry's metadata to authorization rules as apiKey", async () => {
    expect((await get('/eng/x', { authorization: `Bearer ${keyC}` })).status).toBe(200);
    // Authenticated, but the rule does not hold: ops metadata, or a plain key with none.
    expect((await get('/eng/x', { authorization: `Bearer ${keyD}` })).status).toBe(403);
    expect((await get('/eng/x', { authorization: `Bearer ${keyA}` })).status).toBe(403);
  });

  it('answers 401 and never forwards without a key', async () => {
    const before = bench.hits();
    const res = await get('/strict/x');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(res.body)).toEqual({ error: 'unauthorized', error_description: 'API key required' });
    expect(bench.hits()).toBe(before);
  });

  it.each([keyA, keyB])('accepts each key of the Secret as a bearer credential and strips it', async (key) => {
    const res = await get('/strict/x', { authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    expect(seen(res).headers.authorization).toBeUndefined();
  });

  it('answers 401 invalid_api_key for an unknown key', async () => {
    const res = await get('/strict/x', { authorization: `Bearer ${keyA}x` });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ error: 'invalid_api_key', error_description: 'The API key is not valid' });
  });

  it('lets an optional route pass without a key but not with a wrong one', async () => {
    expect((await get('/optional/x')).status).toBe(200);
    expect((await get('/optional/x', { authorization: 'Bearer nope' })).status).toBe(401);
  });

  it('reads the key from a query parameter or a custom header', async () => {
    const q = await get(`/query/x?key=${keyB}&a=1`);
    expect(q.status).toBe(200);
    expect(seen(q).url).toBe('/query/x?a=1');
    expect((await get('/xkey/x', { 'x-api-key': keyA })).status).toBe(200);
    expect((await get('/xkey/x', { authorization: `Bearer ${keyA}` })).status).toBe(401);
  });

  it('refuses a route whose label selector matches no Secret with 503 (the api-keys Secret has no labels)', async () => {
    const res = await get('/selector/x', { authorization: `Bearer ${keyA}` });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body).error_description).toContain('traffic.apiKeyAuthentication');
  });

  it('never writes a key into logs or error bodies', async () => {
    await get('/strict/x', { authorization: 'Bearer sk-leaked-guess-123' });
    for (const text of [...bench.logged, ...bench.bodies]) {
      for (const secret of [keyA, keyB, 'sk-leaked-guess-123']) expect(text).not.toContain(secret);
    }
  });
});
