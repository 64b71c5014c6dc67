// The burst's writer, a separate process (forked by bench/controller/burst.ts): its HTTP and TLS work
// must not run on the event loop whose stalls the benchmark measures. Receives one job per message and
// answers when every write is done. It also plays one proxy of the first gateway over xDS and reports
// when each update arrived and how many resources the proxy then held.
import { pino } from 'pino';
import { KubeClient, loadKubeConfig } from '../../src/controller/kube-client.js';
import { createXdsClient } from '../../src/xds/client.js';
import { burstPolicy, burstRoute } from '../../test/e2e/controller/support/burst-objects.js';

export interface ProxyUpdate {
  proxy: { resources: number; at: number };
}

export interface WriterJob {
  op: 'create' | 'delete';
  kubeconfig: string;
  ns: string;
  gateways: number;
  routes: number;
  policies: number;
}

const GWAPI = '/apis/gateway.networking.k8s.io/v1';
const GW = '/apis/gw.dev/v1alpha1';

async function run(job: WriterJob): Promise<void> {
  const client = new KubeClient(loadKubeConfig(job.kubeconfig));
  const routes = `${GWAPI}/namespaces/${job.ns}/httproutes`;
  const policies = `${GW}/namespaces/${job.ns}/gwpolicies`;
  // Route i, then its policy: the last writes of the burst touch both kinds.
  const writes: (() => Promise<unknown>)[] = [];
  for (let i = 0; i < Math.max(job.routes, job.policies); i++) {
    if (i < job.routes)
      writes.push(() =>
        job.op === 'create'
          ? client.request('POST', routes, { body: burstRoute(i, job.gateways) })
          : client.request('DELETE', `${routes}/r-${i}`),
      );
    if (i < job.policies)
      writes.push(() =>
        job.op === 'create'
          ? client.request('POST', policies, { body: burstPolicy(i) })
          : client.request('DELETE', `${policies}/p-${i}`),
      );
  }
  // As `kubectl apply -f dir/` with many objects would: up to 32 requests in flight.
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < writes.length) await writes[next++]!();
    }),
  );
  client.close();
}

function playProxy(xdsPort: number, gateway: string): void {
  const held = new Set<string>();
  createXdsClient({
    address: `127.0.0.1:${xdsPort}`,
    gateway,
    podName: 'bench-proxy',
    log: pino({ level: 'silent' }),
    apply: (u) => {
      for (const r of u.upserts) held.add(r.name);
      for (const n of u.removes) held.delete(n);
      process.send!({ proxy: { resources: held.size, at: Date.now() } } satisfies ProxyUpdate);
      return { errors: [] };
    },
  });
}

const [xdsPort, gateway] = process.argv.slice(2);
if (xdsPort && gateway) playProxy(Number(xdsPort), gateway);

process.on('message', (job: WriterJob) => {
  run(job).then(
    () => process.send!({ ok: true }),
    (err: unknown) => process.send!({ ok: false, error: String(err) }),
  );
});
process.send!({ ready: true });
