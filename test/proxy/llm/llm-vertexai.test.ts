// Vertex AI through its OpenAI-compatible endpoint, with a Google service account: the real translator and
// proxy against a loopback FAKE of the OpenAI API (fake-vendors.ts; Vertex's endpoint speaks its wire
// format) and a loopback FAKE of Google's token endpoint (fake-token-endpoint.ts, named by the key file's
// token_uri) that checks the assertion's signature with the service account's public key.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from './fake-token-endpoint.js';
import { GATEWAY, aiBackend, aiRoute, chat, secret, startLlmProxy, type LlmProxy } from './llm-harness.js';

const ask = { model: 'google/gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] };
// A throwaway key made for this run: the fake verifies assertions with its public half.
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

describe('LLM routes to Vertex AI with a service account', () => {
  let fake: FakeVendor, google: FakeTokenEndpoint, proxy: LlmProxy;

  beforeAll(async () => {
    [fake, google] = await Promise.all([startFakeVendor('openai'), startFakeTokenEndpoint(keys.publicKey)]);
    const file = JSON.stringify({
      type: 'service_account',
      project_id: 'proj',
      private_key_id: 'kid-7',
      private_key: keys.privateKey,
      client_email: 'llm@proj.iam.gserviceaccount.com',
      token_uri: `${google.url}/token`,
    });
    proxy = await startLlmProxy(`${GATEWAY}${secret('gcp-sa', { 'credentials.json': file })}
${aiBackend('vertex', `vertexai: {projectId: proj, region: europe-west4}, host: 127.0.0.1, port: ${fake.port}`, '{auth: {gcp: {secretRef: {name: gcp-sa}}}}')}
${aiRoute('vertex', '/vertex', 'vertex')}`);
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([fake?.close(), google?.close()]);
  });
  beforeEach(() => {
    fake.received.length = 0;
  });

  it("calls the project's OpenAI-compatible endpoint with a token from a signed JWT assertion, cached", async () => {
    const first = await chat(`${proxy.base}/vertex/chat/completions`, ask);
    const second = await chat(`${proxy.base}/vertex/chat/completions`, ask);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(fake.received[0]?.path).toBe('/v1/projects/proj/locations/europe-west4/endpoints/openapi/chat/completions');
    expect(fake.received[0]?.body.model).toBe('google/gemini-2.0-flash');
    expect(fake.received[0]?.headers.authorization).toBe('Bearer fake-token-1');
    expect(fake.received[1]?.headers.authorization).toBe('Bearer fake-token-1');
    expect(google.requests).toHaveLength(1);
    const claims = google.requests[0]?.claims ?? {};
    expect(claims).toMatchObject({
      iss: 'llm@proj.iam.gserviceaccount.com',
      aud: `${google.url}/token`,
      scope: 'https://www.googleapis.com/auth/cloud-platform',
    });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);
  });

  it('never writes the private key or the token to the logs', () => {
    const body = keys.privateKey.split('\n')[1] ?? '';
    for (const line of proxy.logs) {
      expect(line).not.toContain(body);
      expect(line).not.toContain('fake-token-');
    }
  });
});
