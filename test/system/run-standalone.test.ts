// `make run-standalone` (scripts/run-standalone.sh) beside other processes: every port comes from the
// environment, the proxy binds loopback only, and the banner appears only once the proxy is ready.
import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../proxy/ports.js';

const repo = join(import.meta.dirname, '../..');

/** A guard on the banner, the script's readiness event: a loaded machine took over 20 s to start the proxy. */
const STARTUP_MS = 120_000;

describe('make run-standalone', () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterEach(() => {
    for (const c of children) c.kill('SIGTERM');
  });

  it(
    'takes its ports from the environment, binds loopback, and prints the banner after readiness',
    async () => {
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
      await expect.poll(() => out, { timeout: STARTUP_MS, interval: 100 }).toContain('is running');
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
    },
    STARTUP_MS + 60_000,
  );
});

/** The script with its own process group, as a terminal runs it; `out` collects both streams. */
async function startScript(env: Record<string, string>) {
  const child = spawn('bash', ['scripts/run-standalone.sh'], {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const run = { child, out: '', exited: new Promise<number | null>((r) => child.once('exit', (code) => r(code))) };
  child.stdout?.on('data', (c: Buffer) => (run.out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (run.out += c.toString()));
  return run;
}

async function ports() {
  const [mcp, ready, metrics] = [await freePort(), await freePort(), await freePort()];
  return {
    ports: { mcp, ready, metrics },
    env: {
      GW_EXAMPLE_PORT: String(mcp),
      GW_EXAMPLE_READY_PORT: String(ready),
      GW_EXAMPLE_METRICS_PORT: String(metrics),
    },
  };
}

describe('make run-standalone start-up and Ctrl-C', () => {
  it(
    'prints no banner when another process answers its readiness port, and exits 1 naming the flag',
    async () => {
      const { ports: p, env } = await ports();
      const other = createServer((_req, res) => res.writeHead(200).end('ready\n'));
      await new Promise<void>((r) => other.listen(p.ready, '127.0.0.1', r));
      try {
        const run = await startScript(env);
        expect(await run.exited).toBe(1);
        expect(run.out).not.toContain('is running');
        expect(run.out).toContain(`gw proxy: --ready-address 127.0.0.1:${p.ready}: the port is already in use`);
        expect(run.out).not.toMatch(/\n\s+at /);
      } finally {
        other.close();
      }
    },
    STARTUP_MS + 60_000,
  );

  it(
    'drains on one Ctrl-C to the whole process group, and a second Ctrl-C exits at once',
    async () => {
      for (const presses of [1, 2]) {
        const { env } = await ports();
        const run = await startScript(env);
        await expect.poll(() => run.out, { timeout: STARTUP_MS, interval: 100 }).toContain('is running');
        // For the second press, a request still in flight keeps the drain going until the press comes.
        const hanging =
          presses === 2
            ? request(`http://127.0.0.1:${env.GW_EXAMPLE_PORT}/mcp`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'content-length': '100' },
              }).on('error', () => undefined)
            : undefined;
        hanging?.write('{');
        if (hanging) await new Promise((r) => hanging.once('socket', (s: Socket) => s.once('connect', r)));
        // A terminal's Ctrl-C: SIGINT to every process of the foreground group.
        process.kill(-(run.child.pid as number), 'SIGINT');
        if (presses === 2) {
          await expect.poll(() => run.out, { timeout: 30_000, interval: 50 }).toContain('draining: readiness is false');
          process.kill(-(run.child.pid as number), 'SIGINT');
        }
        const code = await run.exited;
        expect(code).toBe(0);
        expect(run.out).toMatch(/shutting down( workers)?: draining; a second Ctrl-C \(or signal\) exits at once/);
        if (presses === 1) {
          expect(run.out).not.toContain('second signal');
          expect(run.out).toContain('drained');
        } else expect(run.out).toContain('second signal: exiting without waiting for the drain');
      }
    },
    2 * STARTUP_MS + 60_000,
  );
});
