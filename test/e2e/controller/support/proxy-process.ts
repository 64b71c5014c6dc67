// `gw proxy` (bin/gw.js, build dist/ first) in xDS mode fed by an e2e controller process: TLS with the CA
// bundle the controller publishes in the Gateway's namespace, a TokenRequest token of the Gateway's
// ServiceAccount, listeners on 127.0.0.1, its log under .cache/e2e/controller.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { e2eLogDir, eventually, type ControllerProcess } from './controller-process.js';
import { serviceAccountToken, tryRead } from './objects.js';
import { freePort } from '../../../proxy/ports.js';

export { freePort };

export interface ProxyProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the proxy of Gateway `ns/gateway` and resolves once it is ready (its first snapshot applied). */
export async function startXdsProxy(
  kc: KubeConfig,
  ctl: ControllerProcess,
  ns: string,
  gateway: string,
  logName: string,
): Promise<ProxyProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-e2e-proxy-'));
  const bundle = await eventually(() => tryRead(kc, 'v1', 'ConfigMap', 'gw-xds-ca', ns), 60_000, 'CA bundle ConfigMap');
  writeFileSync(join(dir, 'ca.crt'), (bundle.data as Record<string, string>)['ca.crt']!);
  await eventually(() => tryRead(kc, 'v1', 'ServiceAccount', gateway, ns), 60_000, 'proxy ServiceAccount');
  writeFileSync(join(dir, 'xds.token'), await serviceAccountToken(kc, ns, gateway, 'gw-xds'));
  const readyPort = await freePort();
  const child = spawn(
    process.execPath,
    [
      'bin/gw.js',
      'proxy',
      '--xds-address',
      `127.0.0.1:${ctl.xdsPort}`,
      '--gateway',
      `${ns}/${gateway}`,
      '--pod-name',
      'e2e',
      '--xds-token-file',
      join(dir, 'xds.token'),
      '--xds-ca',
      join(dir, 'ca.crt'),
      '--xds-server-name',
      'localhost',
      '--listen-address',
      '127.0.0.1',
      '--ready-address',
      `127.0.0.1:${readyPort}`,
      '--metrics-address',
      '127.0.0.1:0',
      '--shutdown-min-delay',
      '0',
      '--log-level',
      'debug',
    ],
    { cwd: join(e2eLogDir, '..', '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const logFile = createWriteStream(join(e2eLogDir, `${logName}.log`));
  child.stdout!.pipe(logFile);
  child.stderr!.pipe(logFile);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };
  // The proxy's log is block-buffered when piped, so readiness is polled on a port chosen here.
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`proxy exited with ${child.exitCode}`);
      return (await fetch(`http://127.0.0.1:${readyPort}/healthz/ready`)).status === 200 ? true : undefined;
    },
    90_000,
    'proxy ready',
  ).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { child, stop };
}
