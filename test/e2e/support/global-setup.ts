// vitest globalSetup of the e2e project: one API server for the whole run (startup costs seconds and
// the machine is shared), Gateway API CRDs installed once. Test files get the kubeconfig via inject().
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startCluster } from './cluster.js';
import { gatewayApiModule } from './gateway-api.js';
import { applyFiles, crdNamesIn, kubeConfigFrom, waitForCrdsEstablished } from './kube.js';
import { e2eStateDir } from './paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    gatewayApiVersion: string;
    gatewayApiCrdFiles: string[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  rmSync(e2eStateDir, { recursive: true, force: true });
  mkdirSync(e2eStateDir, { recursive: true });
  const kubeconfig = join(e2eStateDir, 'kubeconfig');
  const started = Date.now();
  const cluster = await startCluster({ kubeconfig, logFile: join(e2eStateDir, 'cluster.log') });
  try {
    const gatewayApi = gatewayApiModule();
    await applyFiles(kubeconfig, gatewayApi.crdFiles);
    await waitForCrdsEstablished(kubeConfigFrom(kubeconfig), crdNamesIn(gatewayApi.crdFiles));
    console.log(
      `e2e: API server ${cluster.server} ready with Gateway API ${gatewayApi.version} CRDs in ${Date.now() - started} ms`,
    );
    project.provide('kubeconfig', kubeconfig);
    project.provide('gatewayApiVersion', gatewayApi.version);
    project.provide('gatewayApiCrdFiles', gatewayApi.crdFiles);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return () => cluster.stop();
}
