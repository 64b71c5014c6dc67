// A controller started before its API server is reachable waits, alive and not ready, and becomes
// ready once the API server answers, instead of exiting (CrashLoopBackOff in a pod). The API server
// is made unreachable by pointing the kubeconfig at a port nothing listens on yet; a TCP relay to the
// real e2e API server is then opened on that port (TLS passes through it unchanged).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { freePort } from '../../proxy/ports.js';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { eventually, startController, type ControllerProcess } from './support/controller-process.js';

const suffix = randomBytes(3).toString('hex');

async function readyz(port: number): Promise<number | undefined> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
  } catch {
    return undefined;
  }
}

function relay(listenPort: number, target: URL): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      sockets.forEach((s) => s.destroy());
    });
  return new Promise((resolve) => server.listen(listenPort, '127.0.0.1', () => resolve({ close })));
}

/** What the controller logs when a call to the API server fails and it will try again. */
const RETRY_LINE = /xDS CA yet; retrying|lease update failed|retrying with backoff/;

describe('controller start before the API server is reachable', () => {
  const ns = useNamespace('ctl-start');
  const dir = mkdtempSync(join(tmpdir(), 'gw-startup-e2e-'));
  let ctl: ControllerProcess | undefined;
  let server: { close(): Promise<void> } | undefined;

  afterAll(async () => {
    await ctl?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stays alive and not ready, then becomes ready once the API server answers', async () => {
    await installGwCrds(inject('kubeconfig'), e2eKubeConfig());
    const real = new URL(e2eKubeConfig().getCurrentCluster()!.server);
    const port = await freePort();
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, readFileSync(inject('kubeconfig'), 'utf8').replaceAll(real.host, `127.0.0.1:${port}`));
    ctl = startController({
      kubeconfig,
      identity: `start-${suffix}`,
      controllerName: `gw.dev/e2e-start-${suffix}`,
      leaderElectionNamespace: ns(),
    });
    const health = ctl.healthPort;
    await eventually(async () => ((await readyz(health)) === 503 ? true : undefined), 60_000, '/readyz answering 503');
    // It has tried the unreachable API server and failed several times (its retry log lines), and lives on.
    const retries = (): number => ctl!.logs.filter((l) => RETRY_LINE.test(String(l.msg))).length;
    await eventually(async () => (retries() >= 3 ? true : undefined), 60_000, 'three failed attempts logged');
    expect(ctl.exited(), ctl.describe()).toBe(false);
    expect(await readyz(health)).toBe(503);
    expect((await fetch(`http://127.0.0.1:${health}/healthz`)).status).toBe(200);

    server = await relay(port, real);
    const opened = Date.now();
    await eventually(async () => ((await readyz(health)) === 200 ? true : undefined), 90_000, '/readyz answering 200');
    console.log(`e2e: controller ready ${Date.now() - opened} ms after the API server became reachable`);
    expect(ctl.exited()).toBe(false);
  }, 240_000);
});
