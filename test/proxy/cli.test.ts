import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectClient, processAlive, stdioFixture, textOf, waitFor } from './harness.js';
import { freePort, portIsFree } from './ports.js';
import { tempDirs } from '../support/temp-dir.js';

const dir = tempDirs()('gw-cli-');
const children: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

function gw(args: string[], env: Record<string, string | undefined> = {}) {
  const merged = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/gw-cli.ts', ...args], {
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

function configFile(name: string, port: number, extra = ''): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `# yaml-language-server: $schema=../schema/config.json
mcp:
  port: ${port}
  host: 127.0.0.1
${extra}  targets:
    - name: local
      stdio:
        cmd: ${JSON.stringify(process.execPath)}
        args: [${JSON.stringify(stdioFixture)}]
        env: { FIXTURE_ID: "\${FIXTURE_NAME}" }
`,
  );
  return file;
}

describe('gw proxy command', () => {
  it('exits non-zero naming the unset variable before binding the port', async () => {
    const port = await freePort();
    const run = gw(['proxy', '-f', configFile('unset.yaml', port)], { FIXTURE_NAME: undefined });
    expect(await run.exited).not.toBe(0);
    expect(run.err()).toContain('environment variable not found');
    expect(run.err()).toContain('FIXTURE_NAME');
    expect(run.err()).toContain('mcp.targets[0].stdio.env.FIXTURE_ID');
    expect(await portIsFree(port)).toBe(true);
  });

  it('exits 1 naming the model catalog file and entry before binding the port', async () => {
    const port = await freePort();
    const catalog = path.join(dir, 'catalog.json');
    writeFileSync(catalog, JSON.stringify({ models: [{ name: 'gpt-4o', provider: 'OpenAI', contextWindow: 0 }] }));
    const run = gw(['proxy', '-f', configFile('with-catalog.yaml', port)], {
      FIXTURE_NAME: 'x',
      GW_MODEL_CATALOG: catalog,
    });
    expect(await run.exited).toBe(1);
    // One line naming the file and the entry (the other stderr lines are log records).
    expect(
      run
        .err()
        .split('\n')
        .filter((l) => !l.startsWith('{') && l !== ''),
    ).toEqual([`gw proxy: ${catalog}: models[0] (gpt-4o).contextWindow: must be a positive integer, got 0`]);
    expect(await portIsFree(port)).toBe(true);
  });

  it('validates a file with --validate-only and reports problems with their paths', async () => {
    const good = gw(['proxy', '-f', configFile('good.yaml', 3000), '--validate-only'], { FIXTURE_NAME: 'x' });
    expect(await good.exited).toBe(0);
    expect(good.out()).toContain('valid');
    const bad = gw(['proxy', '-f', configFile('bad.yaml', 0), '--validate-only'], { FIXTURE_NAME: 'x' });
    expect(await bad.exited).toBe(1);
    expect(bad.err()).toContain('mcp.port: must be between 1 and 65535, got 0');
  });

  it('serves MCP, readiness and metrics, and reaps stdio targets on SIGTERM', async () => {
    const [port, ready, metrics] = [await freePort(), await freePort(), await freePort()];
    const run = gw(
      [
        'proxy',
        '-f',
        configFile('run.yaml', port),
        '--ready-address',
        `127.0.0.1:${ready}`,
        '--metrics-address',
        `127.0.0.1:${metrics}`,
        '--log-format',
        'text',
      ],
      // One process: the workers mode (the default on a multi-core machine) has its own test, proxy-workers.test.ts.
      { FIXTURE_NAME: 'cli', GW_WORKERS: '1' },
    );
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${ready}/healthz/ready`).catch(() => undefined))?.status === 200,
      20_000,
    );
    const { client } = await connectClient(`http://127.0.0.1:${port}/mcp`);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('cli:hi');
    const pid = Number(textOf(await client.callTool({ name: 'pid' })));
    const text = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
    expect(text).toMatch(/gw_mcp_requests_total\{method="tools\/call"\} 2/);
    // Per tool, by the target's own tool name.
    expect(text).toMatch(/gw_mcp_tool_calls_total\{target="[^"]+",tool="echo",outcome="ok"\} 1/);
    expect(text).toMatch(/gw_mcp_tool_calls_total\{target="[^"]+",tool="pid",outcome="ok"\} 1/);
    expect(text).toMatch(/gw_mcp_sessions_active 1/);
    expect(text).toMatch(/gw_http_requests_total\{method="POST",status="200"\}/);
    expect(text).toContain('gw_http_request_duration_seconds_bucket');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(processAlive(pid)).toBe(false);
    expect(run.err()).toContain('fixture cli started');
  });
});
