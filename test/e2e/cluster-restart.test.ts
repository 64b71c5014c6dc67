// The harness can restart an API server under its clients (what disruption tests need): same port,
// same certificates, same etcd data.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { startCluster } from './support/cluster.js';
import type { Cluster } from './support/cluster.js';
import { kubeConfigFrom } from './support/kube.js';
import { e2eStateDir } from './support/paths.js';
import { freePort } from '../proxy/ports.js';

describe('a private API server with --data-dir and a fixed port', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-e2e-restart-'));
  const kubeconfig = join(dataDir, 'kubeconfig');
  let cluster: Cluster | undefined;

  afterAll(async () => {
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps objects and serves the same kubeconfig after a restart', async () => {
    const opts = { kubeconfig, dataDir, port: await freePort(), logFile: join(e2eStateDir, 'restart-cluster.log') };
    cluster = await startCluster(opts);
    // Loaded once: after the restart the same address, CA and client certificate must still work.
    const core = kubeConfigFrom(kubeconfig).makeApiClient(CoreV1Api);
    const namespace = 'default';
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'survives' }, data: { answer: '42' } },
    });
    await cluster.stop();

    cluster = await startCluster(opts);
    const cm = await core.readNamespacedConfigMap({ name: 'survives', namespace });
    expect(cm.data).toEqual({ answer: '42' });
  });
});
