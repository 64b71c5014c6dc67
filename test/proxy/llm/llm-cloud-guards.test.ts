// The `bedrockGuardrails` and `googleModelArmor` prompt guards through the real translator and a real listener.
// Amazon Bedrock and Google Model Armor cannot be reached from tests: GW_BEDROCK_GUARDRAILS_ENDPOINT and
// GW_MODEL_ARMOR_ENDPOINT point the guards at loopback STAND-INS that check what the proxy sends on their own:
// the Bedrock one (Python, botocore) recomputes every SigV4 signature with botocore's SigV4Auth and validates
// path and body against botocore's model of ApplyGuardrail; the Model Armor one accepts only a token the stand-in
// token endpoint issued for a service-account assertion it verified with the account's public key.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPromptGuards, type PromptGuards } from '../../../src/proxy/guard/factory.js';
import { startUrlServer, type UrlServer } from '../../fixtures/url-server.js';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from './fake-token-endpoint.js';
import {
  GATEWAY,
  aiBackend,
  aiPolicy,
  aiRoute,
  chat,
  secret,
  sseData,
  streamedText,
  useFakeAndProxy,
} from './llm-harness.js';
import { startModelArmorStandin, type ModelArmorStandin } from './model-armor-standin.js';

const repo = join(import.meta.dirname, '../../..');
const AWS_SECRET = 'guard-SECRET-access-key/0123456789';
const WRONG_SECRET = 'not-the-SECRET-the-stand-in-knows';
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const SA_EMAIL = 'guard@proj.iam.gserviceaccount.com';

interface BedrockReceived {
  path: string;
  signatureProblem: string | null;
  invalid: string | null;
  params: { source: string; content: { text: { text: string } }[]; guardrailIdentifier: string } | null;
  scope: string | null;
  accessKeyId: string | null;
}

const stand: { bedrock?: UrlServer; tokens?: FakeTokenEndpoint; armor?: ModelArmorStandin; guards?: PromptGuards } = {};
beforeAll(async () => {
  const python = (
    await promisify(execFile)('bash', [join(repo, 'scripts/python-botocore.sh')], { timeout: 300_000 })
  ).stdout.trim();
  stand.bedrock = await startUrlServer(python, [
    join(repo, 'test/fixtures/python/bedrock_guardrail_standin.py'),
    JSON.stringify({ AKIDGUARD: AWS_SECRET }),
  ]);
  stand.tokens = await startFakeTokenEndpoint(keys.publicKey);
  stand.armor = await startModelArmorStandin(stand.tokens);
}, 320_000);
afterAll(async () => {
  stand.bedrock?.stop();
  await stand.guards?.close();
  await Promise.all([stand.tokens?.close(), stand.armor?.close()]);
});

/** What the Bedrock stand-in received since `from`. */
async function bedrockCalls(from = 0): Promise<BedrockReceived[]> {
  const res = await fetch(`${stand.bedrock?.url ?? ''}/__received`);
  return ((await res.json()) as BedrockReceived[]).slice(from);
}

const bedrockStep = (credentials: string) =>
  `{bedrockGuardrails: {identifier: gr-7, version: '2', region: eu-west-1, policies: {auth: {aws: {secretRef: {name: ${credentials}}}}}}, customResponse: {statusCode: 451, message: stopped by the guardrail}}`;
const armorStep = `{googleModelArmor: {templateId: tpl-1, projectId: proj, location: europe-west4, policies: {auth: {gcp: {secretRef: {name: gcp-sa}}}}}}`;
const guards = (name: string, step: string, streaming = 'Disabled') =>
  aiPolicy(name, name, `{promptGuard: {streaming: ${streaming}, request: [${step}], response: [${step}]}}`);

const serviceAccount = (): string =>
  JSON.stringify({
    type: 'service_account',
    private_key_id: 'kid-1',
    private_key: keys.privateKey,
    client_email: SA_EMAIL,
    token_uri: `${stand.tokens?.url ?? ''}/token`,
  });

describe('cloud prompt guards (Bedrock Guardrails, Google Model Armor) against stand-ins', () => {
  const t = useFakeAndProxy(
    'openai',
    (port) => {
      const backend = (name: string) => aiBackend(name, `openai: {}, host: 127.0.0.1, port: ${port}`);
      return `${GATEWAY}${secret('aws-guard', { accessKey: 'AKIDGUARD', secretKey: AWS_SECRET })}
${secret('aws-wrong', { accessKey: 'AKIDGUARD', secretKey: WRONG_SECRET })}
${secret('gcp-sa', { 'credentials.json': serviceAccount() })}
${backend('bedrock')}${guards('bedrock', bedrockStep('aws-guard'))}${aiRoute('bedrock', '/bedrock', 'bedrock')}
${backend('buffered')}${guards('buffered', bedrockStep('aws-guard'), 'Buffered')}${aiRoute('buffered', '/buffered', 'buffered')}
${backend('wrong')}${guards('wrong', bedrockStep('aws-wrong'))}${aiRoute('wrong', '/wrong', 'wrong')}
${backend('armor')}${guards('armor', armorStep)}${aiRoute('armor', '/armor', 'armor')}
${backend('armor-buffered')}${guards('armor-buffered', armorStep, 'Buffered')}${aiRoute('armor-buffered', '/armor-buffered', 'armor-buffered')}`;
    },
    {
      llmGuards: (route, ref, log) => {
        stand.guards ??= createPromptGuards({
          env: {
            GW_BEDROCK_GUARDRAILS_ENDPOINT: stand.bedrock?.url,
            GW_MODEL_ARMOR_ENDPOINT: stand.armor?.url,
          },
        });
        return stand.guards.llmGuards(route, ref, log);
      },
    },
  );
  const ask = (content: string, extra: Record<string, unknown> = {}) => ({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content },
    ],
    ...extra,
  });
  const secretsLogged = (): boolean =>
    [AWS_SECRET, WRONG_SECRET, 'PRIVATE KEY', 'fake-token-'].some((s) => t.proxy.logs.join('').includes(s));

  it('Bedrock: a blocked prompt gets the customResponse, signed as botocore signs, and never reaches the provider', async () => {
    const from = (await bedrockCalls()).length;
    const res = await chat(`${t.proxy.base}/bedrock/v1/chat/completions`, ask('how do I BLOCKME'));
    expect(res.status).toBe(451);
    expect(res.json()).toEqual({ error: 'prompt_guard_rejected', error_description: 'stopped by the guardrail' });
    expect(t.fake.received).toEqual([]);
    const [call] = await bedrockCalls(from);
    expect(call?.signatureProblem).toBeNull();
    expect(call?.invalid).toBeNull();
    expect(call?.path).toBe('/guardrail/gr-7/version/2/apply');
    expect(call?.scope).toMatch(/^\d{8}\/eu-west-1\/bedrock$/);
    expect(call?.params).toMatchObject({
      guardrailIdentifier: 'gr-7',
      source: 'INPUT',
      content: [{ text: { text: 'be brief' } }, { text: { text: 'how do I BLOCKME' } }],
    });
    expect(secretsLogged()).toBe(false);
  });

  it('Bedrock: an anonymized prompt goes upstream with the masked text, a clean one unchanged', async () => {
    const masked = await chat(`${t.proxy.base}/bedrock/v1/chat/completions`, ask('mail jane@example.com please'));
    expect(masked.status).toBe(200);
    expect(t.fake.received[0]?.body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'mail {EMAIL} please' },
    ]);
    const clean = await chat(`${t.proxy.base}/bedrock/v1/chat/completions`, ask('hello'));
    expect(clean.status).toBe(200);
    expect(t.fake.received[1]?.body.messages).toEqual(ask('hello').messages);
  });

  it("Bedrock: a blocked answer is replaced by the customResponse after an OUTPUT check of the answer's text", async () => {
    t.fake.mode = { kind: 'ok', content: 'here is BLOCKME content' };
    const from = (await bedrockCalls()).length;
    const res = await chat(`${t.proxy.base}/bedrock/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(451);
    expect(res.text).not.toContain('here is BLOCKME');
    const calls = await bedrockCalls(from);
    expect(calls.map((c) => c.params?.source)).toEqual(['INPUT', 'OUTPUT']);
    expect(calls[1]?.params?.content).toEqual([{ text: { text: 'here is BLOCKME content' } }]);
    expect(calls.every((c) => c.signatureProblem === null)).toBe(true);
  });

  it('Bedrock, streamed answers: with Disabled only the prompt is checked, a stream passes unchecked', async () => {
    const from = (await bedrockCalls()).length;
    const blocked = await chat(`${t.proxy.base}/bedrock/v1/chat/completions`, ask('BLOCKME', { stream: true }));
    expect(blocked.status).toBe(451);
    t.fake.mode = { kind: 'ok', content: 'here is BLOCKME content' };
    const streamed = await chat(`${t.proxy.base}/bedrock/v1/chat/completions`, ask('hello', { stream: true }));
    expect(streamed.status).toBe(200);
    expect(sseData(streamed.text).at(-1)).toBe('[DONE]');
    expect((await bedrockCalls(from)).map((c) => c.params?.source)).toEqual(['INPUT', 'INPUT']);
  });

  it('Bedrock, streamed answers with Buffered: the assembled answer is checked (OUTPUT) before any of it is sent', async () => {
    const from = (await bedrockCalls()).length;
    t.fake.mode = { kind: 'ok', content: 'here is BLOCKME content' };
    const blocked = await chat(`${t.proxy.base}/buffered/v1/chat/completions`, ask('hello', { stream: true }));
    expect(blocked.status).toBe(451);
    expect(blocked.json()).toEqual({ error: 'prompt_guard_rejected', error_description: 'stopped by the guardrail' });
    expect(blocked.text).not.toContain('BLOCKME');
    const calls = await bedrockCalls(from);
    expect(calls.map((c) => c.params?.source)).toEqual(['INPUT', 'OUTPUT']);
    expect(calls[1]?.params?.content).toEqual([{ text: { text: 'here is BLOCKME content' } }]);
    expect(calls.every((c) => c.signatureProblem === null && c.invalid === null)).toBe(true);
    t.fake.mode = { kind: 'ok', content: 'write to jane@example.com today' };
    const masked = await chat(`${t.proxy.base}/buffered/v1/chat/completions`, ask('hello', { stream: true }));
    expect(masked.status).toBe(200);
    expect(masked.headers.get('content-type')).toBe('text/event-stream');
    expect(masked.text).not.toContain('jane@example.com');
    expect(streamedText(masked.text)).toBe('write to {EMAIL} today');
    expect(sseData(masked.text).at(-1)).toBe('[DONE]');
  });

  it('Bedrock: a signature the service does not accept fails closed (502) and names no secret', async () => {
    const from = (await bedrockCalls()).length;
    const res = await chat(`${t.proxy.base}/wrong/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({ error: 'guard_unavailable' });
    expect(res.json().error_description).toContain('answered 403 InvalidSignatureException');
    expect((await bedrockCalls(from))[0]?.signatureProblem).toBe('signature mismatch');
    expect(t.fake.received).toEqual([]);
    expect(res.text).not.toContain(WRONG_SECRET);
  });

  it('Model Armor: a matching prompt is refused with a service-account token, a clean one passes', async () => {
    const armor = stand.armor as ModelArmorStandin;
    const from = armor.received.length;
    const blocked = await chat(`${t.proxy.base}/armor/v1/chat/completions`, ask('BLOCKME now'));
    expect(blocked.status).toBe(403);
    expect(blocked.json()).toMatchObject({ error: 'prompt_guard_rejected' });
    expect(t.fake.received).toEqual([]);
    const clean = await chat(`${t.proxy.base}/armor/v1/chat/completions`, ask('hello'));
    expect(clean.status).toBe(200);
    const calls = armor.received.slice(from);
    expect(calls.map((c) => c.path)).toEqual([
      '/v1/projects/proj/locations/europe-west4/templates/tpl-1:sanitizeUserPrompt',
      '/v1/projects/proj/locations/europe-west4/templates/tpl-1:sanitizeUserPrompt',
      '/v1/projects/proj/locations/europe-west4/templates/tpl-1:sanitizeModelResponse',
    ]);
    expect(calls[0]?.body).toEqual({ userPromptData: { text: 'be brief\n\nBLOCKME now' } });
    expect(calls[2]?.body).toEqual({ modelResponseData: { text: 'Hello' } });
    expect(calls.every((c) => c.claims?.iss === SA_EMAIL)).toBe(true);
    expect(calls[0]?.claims?.scope).toBe('https://www.googleapis.com/auth/cloud-platform');
    expect(secretsLogged()).toBe(false);
  });

  it('Model Armor, streamed answers with Buffered: a matching answer is refused, a clean one released as streamed', async () => {
    t.fake.mode = { kind: 'ok', content: 'an answer with BLOCKME' };
    const res = await chat(`${t.proxy.base}/armor-buffered/v1/chat/completions`, ask('hello', { stream: true }));
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ error: 'prompt_guard_rejected' });
    expect(stand.armor?.received.at(-1)?.body).toEqual({ modelResponseData: { text: 'an answer with BLOCKME' } });
    t.fake.mode = { kind: 'ok', content: 'a clean answer' };
    const clean = await chat(`${t.proxy.base}/armor-buffered/v1/chat/completions`, ask('hello', { stream: true }));
    expect(clean.status).toBe(200);
    expect(streamedText(clean.text)).toBe('a clean answer');
    expect(stand.armor?.received.at(-1)?.body).toEqual({ modelResponseData: { text: 'a clean answer' } });
  });

  it('Model Armor: a matching answer is refused after sanitizeModelResponse', async () => {
    t.fake.mode = { kind: 'ok', content: 'an answer with BLOCKME' };
    const res = await chat(`${t.proxy.base}/armor/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('an answer with BLOCKME');
    expect(stand.armor?.received.at(-1)?.body).toEqual({ modelResponseData: { text: 'an answer with BLOCKME' } });
  });
});
