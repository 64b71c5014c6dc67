// `make run-standalone` (scripts/run-standalone.sh) beside other processes: every port comes from the
// environment, the proxy binds loopback only, and the banner appears only once the proxy is ready.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../proxy/ports.js';

const repo = join(import.meta.dirname, '../..');

describe('make run-standalone', () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterEach(() => {
    for (const c of children) c.kill('SIGTERM');
  });

  it('takes its ports from the environment, binds loopback, and prints the banner after readiness', async () => {
    const [mcp, ready, metrics] = [await freePort(), await freePort(), await freePort()];
    const child = spawn('bash', ['scripts/run-standalone.sh'], {
      cwd: repo,
      env: {
        ...process.env,
        GW_EXAMPLE_PORT: String(mcp),
        GW_EXAMPLE_READY_PORT: String(ready),
        GW_EXAMPLE_METRICS_PORT: String(metrics),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    await expect.poll(() => out, { timeout: 20_000, interval: 100 }).toContain('is running');
    // The banner names the ports it was given and came after the proxy's own "ready" line.
    expect(out).toContain(`http://127.0.0.1:${mcp}/mcp`);
    expect(out).toContain(`http://127.0.0.1:${ready}/healthz/ready`);
    expect(out.indexOf('proxy started')).toBeGreaterThanOrEqual(0);
    expect(out.indexOf('is running')).toBeGreaterThan(out.indexOf('proxy started'));
    expect((await fetch(`http://127.0.0.1:${metrics}/metrics`)).status).toBe(200);
    const res = await fetch(`http://127.0.0.1:${mcp}/mcp`, { method: 'DELETE' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const nonLoopback = Object.values((await import('node:os')).networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (nonLoopback) await expect(fetch(`http://${nonLoopback}:${mcp}/mcp`, { method: 'DELETE' })).rejects.toThrow();
  }, 30_000);
});
