// `make run-llm` (scripts/run-local.sh with GW_EXAMPLE=llm) on a copy of examples/local-llm with free
// ports: a newcomer's chat completion through the gateway reaches the fake OpenAI server with the
// Secret's key (written with stringData); without the Secret the client gets OpenAI's error shape
// naming it, and the controller log counts it as a problem. The README's "From clone to an LLM call"
// Python snippet runs as written (only its port changed) with the real `openai` SDK from PyPI
// (scripts/python-openai.sh), so a README edit that breaks it fails here.
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../proxy/ports.js';

const repo = join(import.meta.dirname, '../..');
const dirs: string[] = [];
const children: ReturnType<typeof spawn>[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    const exited = new Promise((r) => c.once('exit', r));
    process.kill(-(c.pid as number), 'SIGINT');
    await exited;
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const { SESSION_KEY: _, ...withoutSessionKey } = process.env;

async function runLlm(withSecret: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'gw-run-llm-'));
  dirs.push(dir);
  cpSync(join(repo, 'examples/local-llm'), dir, { recursive: true });
  const [listen, upstream, xds, health, cmetrics, ready, metrics, admin] = await Promise.all(
    Array.from({ length: 8 }, () => freePort()),
  );
  const edit = (file: string, from: string, to: string) =>
    writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replace(from, to));
  edit('gateway.yaml', 'port: 3000', `port: ${listen}`);
  edit('backend.yaml', 'port: 3002', `port: ${upstream}`);
  if (!withSecret) rmSync(join(dir, 'secret.yaml'));
  const child = spawn('bash', ['scripts/run-local.sh'], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...withoutSessionKey,
      GW_EXAMPLE: 'llm',
      GW_EXAMPLE_DIR: dir,
      GW_EXAMPLE_STATUS_DIR: join(dir, '.status'),
      GW_EXAMPLE_UPSTREAM_PORT: String(upstream),
      GW_EXAMPLE_XDS_PORT: String(xds),
      GW_EXAMPLE_HEALTH_PORT: String(health),
      GW_EXAMPLE_CONTROLLER_METRICS_PORT: String(cmetrics),
      GW_EXAMPLE_READY_PORT: String(ready),
      GW_EXAMPLE_METRICS_PORT: String(metrics),
      GW_EXAMPLE_ADMIN_PORT: String(admin),
    },
  });
  children.push(child);
  const run = { out: '', base: `http://127.0.0.1:${listen}/v1` };
  child.stdout?.on('data', (c: Buffer) => (run.out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (run.out += c.toString()));
  // A guard on the banner event (run-lib waits up to GW_RUN_READY_SECONDS for readiness under vitest).
  await expect.poll(() => run.out, { timeout: 150_000, interval: 100 }).toContain('OpenAI-compatible base URL');
  return run;
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
    expect(run.out).not.toContain('SESSION_KEY');
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
    expect(run.out).not.toMatch(/problems: 0/);
    expect(run.out).toContain('GwBackend default/llm: status.ResolvedRefs');
    const sdk = await runSnippet(run.base);
    expect(sdk.ok).toBe(false);
    expect(sdk.out).toContain('openai.InternalServerError: Error code: 500');
    expect(sdk.out).toContain('Secret default/openai-key does not exist');
  }, 240_000);
});
