// A one-node Kubernetes cluster on this machine for the real-node suite: gw-cluster (etcd + kube-apiserver)
// listening on a Linux bridge's address, kube-controller-manager, kube-scheduler, kube-proxy (iptables) and a
// kubelet, built from the same k8s.io/kubernetes module as the API server (`make node`), a private containerd
// with runc and the bridge + host-local CNI plugins (Debian packages), and a small DNS server of ours for
// Service names (no CoreDNS image without a registry). Images come from `make image` and the sandbox image
// from test/cluster/pause, imported with `ctr -n k8s.io images import`. Needs root (namespaces, iptables).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { startCluster, clusterDir, type Cluster } from '../support/cluster.js';
import { gatewayApiModule } from '../support/gateway-api.js';
import { applyFiles, crdNamesIn, kubeConfigFrom, waitForCrdsEstablished } from '../support/kube.js';
import { gwVersion as version, imageArchive } from '../support/image-archive.js';
import { e2eStateDir } from '../support/paths.js';
import { freePort } from '../../proxy/ports.js';
import { startClusterDns, type ClusterDns } from './cluster-dns.js';
import { buildPauseArchive } from './pause-image.js';

const run = promisify(execFile);

/** The node's bridge, its address (the node IP, the API server's and the DNS server's) and the pod range. */
export const BRIDGE = 'gwnode0';
export const NODE_IP = '10.244.0.1';
export const POD_CIDR = '10.244.0.0/16';
export const NODE_NAME = 'gw-node';
export const PAUSE_IMAGE = 'gw.test/pause:1';
const binDir = join(clusterDir, 'bin');
export const nodeLogDir = join(e2eStateDir, 'node');
export const gwImages = {
  controller: `ghcr.io/gw-dev/controller:${version}`,
  proxy: `ghcr.io/gw-dev/proxy:${version}`,
};
const COMPONENTS = ['kubelet', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'pause'] as const;
// Debian packages the node needs, by the command or file that shows each is there.
const PACKAGES: [string, string][] = [
  ['/usr/bin/containerd', 'containerd'],
  ['/usr/sbin/runc', 'runc'],
  ['/usr/lib/cni/bridge', 'containernetworking-plugins'],
  ['/usr/sbin/iptables', 'iptables'],
  ['/usr/sbin/ip', 'iproute2'],
  ['/usr/bin/setpriv', 'util-linux'],
];

/** Set once the harness stops the node, so the components' exits are expected and not reported. */
let stopping = false;

export interface NodeCluster {
  kubeconfig: string;
  server: string;
  stop(): Promise<void>;
}

/** Fails naming `make node` / `make image` when a binary or the image archive is missing (never skips). */
export function assertNodeArtifacts(): void {
  const missing = COMPONENTS.filter((c) => !existsSync(join(binDir, c))).map((c) => join(binDir, c));
  if (missing.length) throw new Error(`real node: ${missing.join(', ')} missing; run \`make node\``);
  if (!existsSync(imageArchive)) throw new Error(`real node: ${imageArchive} is missing; run \`make image\``);
}

/** Installs the Debian packages the node needs when one is missing (as root, like Go fetches modules). */
async function ensurePackages(): Promise<void> {
  const missing = PACKAGES.filter(([path]) => !existsSync(path)).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  try {
    await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { maxBuffer: 16 << 20 });
  } catch (err) {
    throw new Error(
      `real node: apt-get install -y ${missing.join(' ')} failed (root and Debian's package lists are needed): ${String(err)}`,
    );
  }
}

async function sh(cmd: string, args: string[]): Promise<string> {
  try {
    return (await run(cmd, args, { maxBuffer: 16 << 20 })).stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`real node: \`${cmd} ${args.join(' ')}\` failed: ${e.stderr || e.message}`);
  }
}

/** The bridge with the node's address, forwarding on, and bridged traffic through iptables (kube-proxy needs it). */
async function setUpNetwork(): Promise<void> {
  const links = await sh('ip', ['-br', 'link']);
  if (!links.split('\n').some((l) => l.startsWith(`${BRIDGE} `)))
    await sh('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
  await sh('ip', ['addr', 'replace', `${NODE_IP}/16`, 'dev', BRIDGE]);
  await sh('ip', ['link', 'set', BRIDGE, 'up']);
  writeFileSync('/proc/sys/net/ipv4/ip_forward', '1');
  writeFileSync('/proc/sys/net/bridge/bridge-nf-call-iptables', '1');
}

interface Component {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
}

function startComponent(name: string, cmd: string, args: string[]): Component {
  const log = createWriteStream(join(nodeLogDir, `${name}.log`), { flags: 'a' });
  // SIGKILL when the test process dies without its afterAll (util-linux setpriv sets PR_SET_PDEATHSIG).
  const child = spawn('setpriv', ['--pdeathsig', 'SIGKILL', cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { name, child, exited };
}

async function stopComponent(c: Component, graceMs = 10_000): Promise<void> {
  if (c.child.exitCode !== null || c.child.signalCode !== null) return;
  c.child.kill('SIGTERM');
  const timer = setTimeout(() => c.child.kill('SIGKILL'), graceMs);
  await c.exited;
  clearTimeout(timer);
}

/** Polls `check` until it returns a value; the failure names what was awaited and where the logs are. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline)
      throw new Error(
        `real node: ${what} not reached in ${timeoutMs} ms${last ? ` (last error: ${last})` : ''}; logs in ${nodeLogDir}`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
}

function containerdConfig(dir: string): string {
  return `version = 2
root = "${dir}/containerd/root"
state = "${dir}/containerd/state"
[grpc]
  address = "${dir}/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  enable_selinux = false
  # Lowering a process's oom_score_adj needs CAP_SYS_RESOURCE, which root here lacks (runc's init fails with
  # "can't get final child's PID from pipe"); kept at or above containerd's own instead.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${dir}/cni"
`;
}

function cniConfig(dir: string): string {
  return JSON.stringify({
    cniVersion: '0.4.0',
    name: 'gw-node',
    plugins: [
      {
        type: 'bridge',
        bridge: BRIDGE,
        isGateway: true,
        // Pods talk only to the node, each other and Service VIPs: no masquerading (and no rules left behind).
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: POD_CIDR, gateway: NODE_IP }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: join(dir, 'ipam'),
        },
      },
    ],
  });
}

function kubeletConfig(dir: string, caFile: string, sock: string, port: number): string {
  return JSON.stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    // cgroup v1 here (machine notes): Kubernetes 1.35 refuses it unless told, and there is no systemd.
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    cgroupsPerQOS: false,
    enforceNodeAllocatable: [],
    failSwapOn: false,
    containerRuntimeEndpoint: `unix://${sock}`,
    address: NODE_IP,
    port,
    readOnlyPort: 0,
    healthzPort: 0,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: caFile } },
    authorization: { mode: 'Webhook' },
    clusterDNS: [NODE_IP],
    clusterDomain: 'cluster.local',
    resolvConf: join(dir, 'resolv.conf'),
    podLogsDir: join(dir, 'pod-logs'),
    // A shared test machine's disk and memory must not evict the suite's pods or its imported images.
    evictionHard: {
      'memory.available': '1Mi',
      'nodefs.available': '1%',
      'imagefs.available': '1%',
      'nodefs.inodesFree': '1%',
    },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    localStorageCapacityIsolation: false,
    protectKernelDefaults: false,
    serializeImagePulls: false,
    shutdownGracePeriod: '0s',
  });
}

/** Kills and deletes every container of the node's containerd (their shims outlive containerd otherwise). */
async function removeContainers(ctr: (args: string[]) => Promise<string>): Promise<void> {
  const ids = (await ctr(['containers', 'list', '-q']).catch(() => '')).split('\n').filter(Boolean);
  for (const id of ids) {
    await ctr(['tasks', 'kill', '-s', 'SIGKILL', id]).catch(() => '');
    await ctr(['tasks', 'delete', '-f', id]).catch(() => '');
    await ctr(['containers', 'delete', id]).catch(() => '');
  }
}

/**
 * Removes the KUBE-* chains the kubelet leaves (KUBE-FIREWALL, canaries) and any kube-proxy's `--cleanup`
 * missed: the jumps to them first, then the chains. Nothing else on these machines names chains KUBE-*.
 */
async function removeKubeChains(): Promise<void> {
  for (const cmd of ['iptables', 'ip6tables']) {
    for (const table of ['filter', 'nat', 'mangle']) {
      const rules = (await sh(cmd, ['-t', table, '-S']).catch(() => '')).split('\n');
      for (const rule of rules.filter((r) => r.startsWith('-A ') && / -j KUBE-/.test(r)))
        await sh('sh', ['-c', `${cmd} -t ${table} -D ${rule.slice(3)}`]).catch(() => '');
      for (const chain of rules.filter((r) => r.startsWith('-N KUBE-')).map((r) => r.slice(3))) {
        await sh(cmd, ['-t', table, '-F', chain]).catch(() => '');
        await sh(cmd, ['-t', table, '-X', chain]).catch(() => '');
      }
    }
  }
}

/** Unmounts what the kubelet mounted under `dir` (Secret and projected volumes are tmpfs), deepest first. */
async function unmountUnder(dir: string): Promise<void> {
  const mounts = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1] ?? '')
    .filter((m) => m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) await sh('umount', ['-l', m]).catch(() => '');
}

export async function startNodeCluster(): Promise<NodeCluster> {
  assertNodeArtifacts();
  if (process.getuid?.() !== 0) throw new Error('real node: the suite runs containers and needs root');
  await ensurePackages();
  rmSync(nodeLogDir, { recursive: true, force: true });
  mkdirSync(nodeLogDir, { recursive: true });
  // Short: containerd's socket path must fit a sockaddr_un (108 bytes).
  const dir = mkdtempSync('/tmp/gwn-');
  for (const d of ['cni', 'ipam', 'pod-logs', 'kubelet', 'apiserver']) mkdirSync(join(dir, d), { recursive: true });
  const components: Component[] = [];
  let cluster: Cluster | undefined;
  let dns: ClusterDns | undefined;
  const sock = join(dir, 'containerd.sock');
  const ctr = (args: string[]) => sh('ctr', ['--address', sock, '--namespace', 'k8s.io', ...args]);
  const netnsBefore = new Set((await sh('ip', ['netns', 'list'])).split('\n').map((l) => l.split(' ')[0]));

  const stop = async () => {
    const kubelet = components.find((c) => c.name === 'kubelet');
    if (kubelet) await stopComponent(kubelet);
    if (components.some((c) => c.name === 'containerd')) await removeContainers(ctr);
    for (const c of components.reverse()) await stopComponent(c);
    await dns?.close();
    await cluster?.stop();
    await run(join(binDir, 'kube-proxy'), ['--cleanup']).catch(() => undefined);
    await removeKubeChains();
    const netnsAfter = (await sh('ip', ['netns', 'list']).catch(() => '')).split('\n').map((l) => l.split(' ')[0]);
    for (const ns of netnsAfter)
      if (ns && !netnsBefore.has(ns)) await sh('ip', ['netns', 'delete', ns]).catch(() => '');
    await sh('ip', ['link', 'delete', BRIDGE]).catch(() => '');
    await unmountUnder(dir);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await setUpNetwork();
    const kubeconfig = join(dir, 'kubeconfig');
    cluster = await startCluster({
      kubeconfig,
      logFile: join(nodeLogDir, 'apiserver.log'),
      address: NODE_IP,
      dataDir: join(dir, 'apiserver'),
      apiserverArgs: [
        // Pods reach the API server through the kubernetes Service, whose endpoint is the bridge address.
        '--endpoint-reconciler-type=lease',
        '--allow-privileged=true',
        `--kubelet-client-certificate=${join(dir, 'apiserver/pki/admin.crt')}`,
        `--kubelet-client-key=${join(dir, 'apiserver/pki/admin.key')}`,
      ],
    });
    // The Gateway API CRDs the chart's GatewayClass needs, as global-setup installs them on the shared server.
    const gatewayApi = gatewayApiModule();
    await applyFiles(kubeconfig, gatewayApi.crdFiles);
    await waitForCrdsEstablished(kubeConfigFrom(kubeconfig), crdNamesIn(gatewayApi.crdFiles));
    const pki = join(dir, 'apiserver', 'pki');
    const common = [`--kubeconfig=${kubeconfig}`];

    writeFileSync(join(dir, 'containerd.toml'), containerdConfig(dir));
    writeFileSync(join(dir, 'cni', '10-gw-node.conflist'), cniConfig(dir));
    writeFileSync(join(dir, 'resolv.conf'), `nameserver ${NODE_IP}\n`);
    components.push(startComponent('containerd', 'containerd', ['--config', join(dir, 'containerd.toml')]));
    await until('containerd answering', async () => ((await ctr(['version'])) ? true : undefined), 60_000);
    await ctr(['images', 'import', '--all-platforms', imageArchive]);
    await ctr(['images', 'import', await buildPauseArchive(join(binDir, 'pause'), join(dir, 'pause'), PAUSE_IMAGE)]);

    dns = await startClusterDns(NODE_IP, kubeConfigFrom(kubeconfig).makeApiClient(CoreV1Api));

    components.push(
      startComponent('kube-controller-manager', join(binDir, 'kube-controller-manager'), [
        ...common,
        '--leader-elect=false',
        '--secure-port=0',
        '--use-service-account-credentials=true',
        `--service-account-private-key-file=${join(pki, 'sa.key')}`,
        `--root-ca-file=${join(pki, 'ca.crt')}`,
      ]),
      startComponent('kube-scheduler', join(binDir, 'kube-scheduler'), [
        ...common,
        '--leader-elect=false',
        '--secure-port=0',
      ]),
      startComponent('kube-proxy', join(binDir, 'kube-proxy'), [
        ...common,
        '--proxy-mode=iptables',
        `--hostname-override=${NODE_NAME}`,
        `--cluster-cidr=${POD_CIDR}`,
        // No conntrack sysctls: the module's knobs are the host's, and modules cannot be loaded here.
        '--conntrack-max-per-core=0',
        '--conntrack-tcp-timeout-established=0',
        '--conntrack-tcp-timeout-close-wait=0',
        `--healthz-bind-address=127.0.0.1:${await freePort()}`,
        `--metrics-bind-address=127.0.0.1:${await freePort()}`,
      ]),
    );
    writeFileSync(join(dir, 'kubelet.json'), kubeletConfig(dir, join(pki, 'ca.crt'), sock, await freePort()));
    components.push(
      startComponent('kubelet', join(binDir, 'kubelet'), [
        ...common,
        `--config=${join(dir, 'kubelet.json')}`,
        `--root-dir=${join(dir, 'kubelet')}`,
        `--hostname-override=${NODE_NAME}`,
        `--node-ip=${NODE_IP}`,
      ]),
    );
    for (const c of components)
      void c.exited.then(() => {
        if (!stopping)
          console.warn(`real node: ${c.name} exited (code ${c.child.exitCode}); see ${nodeLogDir}/${c.name}.log`);
      });
    const core = kubeConfigFrom(kubeconfig).makeApiClient(CoreV1Api);
    await until('node Ready', async () => {
      const node = await core.readNode({ name: NODE_NAME });
      return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
    });
    await until('default ServiceAccount', async () =>
      (await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' })) ? true : undefined,
    );
    return {
      kubeconfig,
      server: cluster.server,
      stop: async () => {
        stopping = true;
        await stop();
      },
    };
  } catch (err) {
    stopping = true;
    await stop();
    throw err;
  }
}
