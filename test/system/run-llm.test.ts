// `make run-llm` (scripts/run-local.sh with GW_EXAMPLE=llm) on a copy of examples/local-llm with free
// ports: a newcomer's chat completion through the gateway reaches the fake OpenAI server with the
// Secret's key (written with stringData); without the Secret the client gets OpenAI's error shape
// naming it, and the controller log counts it as a problem. The README's "From clone to an LLM call"
// Python snippet runs as written (only its port changed) with the real `openai` SDK from PyPI
// (scripts/python-openai.sh), so a README edit that breaks it fails here.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMakeRun, type MakeRun } from '../support/make-run.js';

const repo = join(import.meta.dirname, '../..');
const runs: MakeRun[] = [];
afterEach(async () => {
  for (const r of runs.splice(0)) await r.stop();
});

async function runLlm(withSecret: boolean) {
  const run = await startMakeRun({ example: 'llm', remove: withSecret ? [] : ['secret.yaml'] });
  runs.push(run);
  await run.ready;
  expect(run.output()).toContain('OpenAI-compatible base URL');
  return { output: run.output, base: `${run.origin}/v1` };
}

const exec = promisify(execFile);
let python = '';
beforeAll(async () => {
  python = (await exec('bash', [join(repo, 'scripts/python-openai.sh')], { timeout: 300_000 })).stdout.trim();
}, 300_000);

/** The README's Python snippet, pointed at this run's port. */
function readmeSnippet(base: string): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## From clone to an LLM call'));
  const code = /```python\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code?.includes('http://127.0.0.1:3000/v1')) throw new Error('README: no Python snippet with the base URL');
  return code.replace('http://127.0.0.1:3000/v1', base);
}

/** Runs the snippet with the `openai` SDK; stdout and stderr together. */
async function runSnippet(base: string): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout, stderr } = await exec(python, ['-c', readmeSnippet(base)], { timeout: 30_000 });
    return { ok: true, out: stdout + stderr };
  } catch (err) {
    const e = err as { stdout: string; stderr: string };
    return { ok: false, out: e.stdout + e.stderr };
  }
}

const chat = (base: string) =>
  fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }),
  });

describe('make run-llm', () => {
  it("answers a chat completion through the gateway with the key from the example Secret, also the README's openai snippet", async () => {
    const run = await runLlm(true);
    const res = await chat(run.base);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe('You said: Hello');
    expect(await runSnippet(run.base)).toEqual({ ok: true, out: 'You said: Hello\n' });
    // A local run makes its own session key: no replica warning on every start.
    expect(run.output()).not.toContain('SESSION_KEY');
    // The web UI's LLM playground (its default origin) may call the route with the headers it sends.
    const preflight = await fetch(`${run.base}/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://127.0.0.1:15000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:15000');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  }, 240_000);

  it("without the Secret: OpenAI's error shape naming the Secret (the openai SDK's exception shows it), and the controller log counts the problem", async () => {
    const run = await runLlm(false);
    const res = await chat(run.base);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      error: {
        code: 'credential_missing',
        message: expect.stringContaining('Secret default/openai-key does not exist'),
      },
    });
    expect(run.output()).not.toMatch(/problems: 0/);
    expect(run.output()).toContain('GwBackend default/llm: status.ResolvedRefs');
    const sdk = await runSnippet(run.base);
    expect(sdk.ok).toBe(false);
    expect(sdk.out).toContain('openai.InternalServerError: Error code: 500');
    expect(sdk.out).toContain('Secret default/openai-key does not exist');
  }, 240_000);
});
