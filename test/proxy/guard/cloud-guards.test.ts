// The cloud guard steps from translated policies, against a loopback server standing in for the vendor (the
// real services cannot be reached from tests): where a Bedrock API key goes, and the answers that must fail
// closed. Signatures and tokens are checked by independent stand-ins in test/proxy/llm/llm-cloud-guards.test.ts.
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPromptGuards, unenforcedPromptGuard, type PromptGuards } from '../../../src/proxy/guard/factory.js';
import type { GuardVerdict } from '../../../src/proxy/guard/types.js';
import { startUpstream, type Upstream } from '../http-forward-harness.js';
import { chat, ctxOf, edgeOf, guardsFor, llmManifests } from './guard-harness.js';

const all: PromptGuards[] = [];
let vendor: Upstream;
const seen: { url: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
let answer: unknown = { action: 'NONE', outputs: [] };

beforeAll(async () => {
  vendor = await startUpstream((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
});
afterAll(async () => {
  await Promise.all(all.map((p) => p.close()));
  await vendor?.close();
});

const env = () => ({
  GW_BEDROCK_GUARDRAILS_ENDPOINT: `http://127.0.0.1:${vendor.port}`,
  GW_MODEL_ARMOR_ENDPOINT: `http://127.0.0.1:${vendor.port}`,
});
const bedrock = (auth: unknown) => ({
  request: [
    {
      bedrockGuardrails: {
        identifier: 'arn:aws:bedrock:us-east-1:1:guardrail/g',
        version: '1',
        region: 'us-east-1',
        policies: { auth },
      },
    },
  ],
});
const hi = chat({ role: 'user', content: 'hi' });
const run = async (promptGuard: unknown): Promise<GuardVerdict | undefined> => {
  const { guards } = guardsFor(llmManifests(promptGuard), all, env());
  return guards?.request?.(hi, ctxOf(hi));
};
const errorOf = (v: GuardVerdict | undefined) =>
  v?.action === 'reject' ? { status: v.status, ...(JSON.parse(v.body) as object) } : v;

describe('Bedrock API keys', () => {
  it('sends a key as a bearer token by default, to the ARN encoded as one path segment', async () => {
    seen.length = 0;
    expect(await run(bedrock({ key: 'brk-key-1' }))).toEqual({ action: 'allow' });
    expect(seen[0]?.url).toBe('/guardrail/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Aguardrail%2Fg/version/1/apply');
    expect(seen[0]?.headers.authorization).toBe('Bearer brk-key-1');
    expect(seen[0]?.body).toEqual({ source: 'INPUT', content: [{ text: { text: 'hi' } }] });
  });

  it('puts a key in the header, query parameter or cookie that location names', async () => {
    seen.length = 0;
    await run(bedrock({ key: 'k2', location: { header: { name: 'X-Api-Key', prefix: 'Key ' } } }));
    await run(bedrock({ key: 'k3', location: { queryParameter: { name: 'api_key' } } }));
    await run(bedrock({ key: 'k4', location: { cookie: { name: 'session' } } }));
    expect(seen[0]?.headers['x-api-key']).toBe('Key k2');
    expect(seen[0]?.headers.authorization).toBeUndefined();
    expect(seen[1]?.url).toMatch(/\/apply\?api_key=k3$/);
    expect(seen[2]?.headers.cookie).toBe('session=k4');
  });
});

describe('cloud guard settings the proxy cannot honour', () => {
  it('refuses a Bedrock location with aws signing (nothing would act on it) rather than ignore it', () => {
    const { route, ref } = edgeOf(llmManifests(bedrock({ aws: {}, location: { header: { name: 'X-Key' } } })));
    expect(unenforcedPromptGuard(route, ref)).toEqual([
      'GwPolicy default/guards backend.ai.promptGuard.request[0].bedrockGuardrails.policies.auth.location: only a key or secretRef is placed by location; aws signs the request',
    ]);
  });
});

describe('cloud guard answers that fail closed', () => {
  it('rejects a Bedrock intervention that neither blocked nor masked one output per text', async () => {
    answer = {
      action: 'GUARDRAIL_INTERVENED',
      outputs: [{ text: 'a' }, { text: 'b' }],
      assessments: [{ sensitiveInformationPolicy: { piiEntities: [{ action: 'ANONYMIZED' }] } }],
    };
    expect(errorOf(await run(bedrock({ key: 'k' })))).toMatchObject({ status: 403, error: 'prompt_guard_rejected' });
    answer = { action: 'GUARDRAIL_INTERVENED', outputs: [], assessments: [] };
    expect(errorOf(await run(bedrock({ key: 'k' })))).toMatchObject({ status: 403, error: 'prompt_guard_rejected' });
    answer = { action: 'MAYBE' };
    expect(errorOf(await run(bedrock({ key: 'k' })))).toMatchObject({ status: 502, error: 'guard_bad_response' });
  });

  it('refuses a Model Armor answer whose filters did not all run, or that has no match state', async () => {
    const armor = {
      request: [{ googleModelArmor: { templateId: 't', projectId: 'p', policies: { auth: { key: 'ya29.token' } } } }],
    };
    answer = { sanitizationResult: { filterMatchState: 'NO_MATCH_FOUND', invocationResult: 'PARTIAL' } };
    expect(errorOf(await run(armor))).toMatchObject({ status: 502, error: 'guard_bad_response' });
    answer = { sanitizationResult: {} };
    expect(errorOf(await run(armor))).toMatchObject({ status: 502, error: 'guard_bad_response' });
    answer = { sanitizationResult: { filterMatchState: 'NO_MATCH_FOUND', invocationResult: 'SUCCESS' } };
    expect(await run(armor)).toEqual({ action: 'allow' });
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer ya29.token');
  });
});

describe('cloud guard endpoints', () => {
  it('refuses to start with an endpoint variable that is not an http(s) URL, naming it', () => {
    expect(() => createPromptGuards({ env: { GW_MODEL_ARMOR_ENDPOINT: 'ftp://x' } })).toThrow(
      /GW_MODEL_ARMOR_ENDPOINT: must be an http\(s\) URL, got "ftp:\/\/x"/,
    );
  });
});
