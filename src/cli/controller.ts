// `gw controller`: local mode (`--manifests DIR`: xDS and ops endpoints on loopback) or cluster mode.
// Flags follow docs/controller-cli.md; every flag also reads GW_<FLAG_IN_UPPER_SNAKE>, flags winning.
import type { LevelWithSilent, Logger } from 'pino';
import { createLogger } from '../log.js';
import { isLoopbackName } from '../proxy/net/loopback.js';
import { parseAddress } from '../proxy/ops.js';
import { DEFAULT_CONTROLLER_NAME } from '../translate/objects/context.js';
import type { ControllerConfig, MeshDefaults } from '../controller/config.js';
import type { ControllerUi } from '../controller/fleet.js';

export type { ControllerConfig } from '../controller/config.js';

const VALUE_FLAGS = [
  'kubeconfig',
  'manifests',
  'status-dir',
  'controller-name',
  'gateway-class-name',
  'gateway-class-parameters-refs',
  'discovery-namespace-selectors',
  'gateway-namespaces',
  'xds-mode',
  'xds-ca-dir',
  'xds-port',
  'health-port',
  'metrics-port',
  'admin-address',
  'admin-token-file',
  'log-level',
  'log-format',
  'leader-election-namespace',
  'proxy-image',
  'service-name',
  'service-namespace',
  'release-name',
  'otlp-traces-url',
  'istio-ca-address',
  'istio-cluster-id',
  'istio-namespace',
  'istio-network',
  'istio-revision',
] as const;
const BOOL_FLAGS = [
  'enable-models',
  'enable-xbackend',
  'enable-inference-extension',
  'leader-elect',
  'istio-auto-enabled',
  'once',
] as const;

export const USAGE = `Usage: gw controller [--manifests DIR [--status-dir DIR] [--once]] [options]

Translates Gateway API objects and Gw resources into per-gateway proxy snapshots and reports status.
Local mode (--manifests DIR) reads every .yaml/.yml/.json file below DIR, watches it, and writes one
status file per object under --status-dir. Without --manifests the controller runs against a cluster.

Options (each also read from GW_<NAME>, e.g. GW_CONTROLLER_NAME):
  --manifests DIR                 local mode: objects come from YAML files in DIR
  --status-dir DIR                local mode: write <Kind>/<namespace>/<name>.yaml status files here
  --once                          local mode: translate once, write statuses and exit
  --kubeconfig PATH               cluster mode: kubeconfig (default $KUBECONFIG, else in-cluster)
  --controller-name NAME          GatewayClasses with this controllerName are ours (default ${DEFAULT_CONTROLLER_NAME})
  --gateway-class-name NAME       class name of the built-in GatewayClass (default gw)
  --gateway-class-parameters-refs JSON   class name -> {name, namespace} of its GwParameters
  --discovery-namespace-selectors JSON   list of label selectors (OR); Gateways only in matching namespaces
  --gateway-namespaces LIST       comma-separated namespaces the controller writes to (default all)
  --xds-mode plaintext|tls|either (default tls; local mode: plaintext)    --xds-port N (default 9978)
  --xds-ca-dir DIR                local mode with tls/either: keep the CA here; proxies use DIR/ca.crt
  --health-port N (default 9093)  --metrics-port N (default 9092)
  --admin-address HOST:PORT       fleet web UI (default 127.0.0.1:9094; off: none; docs/ui.md)
  --admin-token-file FILE         bearer token the UI's API asks for; required off loopback
  --enable-models                 translate GwModel resources   --enable-xbackend   --enable-inference-extension
  --log-level LEVEL (default info)   --log-format json|text (default json)
  --leader-elect / --no-leader-elect   --leader-election-namespace NS   --proxy-image REF
  --service-name NAME (default gw)   --service-namespace NS (default the leader election namespace)
  --release-name NAME             prefix of the CA Secret/ConfigMap and the Lease (default gw)
  --otlp-traces-url URL           trace translations, snapshot pushes and proxy ACKs (OTLP/HTTP protobuf)
  --istio-ca-address HOST:PORT      CA_ADDR for gateways whose GwParameters set istio.enabled and no caAddress
  --istio-namespace NS --istio-revision REV   instead: istiod[-REV].NS.svc:15012 (NS default istio-system)
  --istio-cluster-id ID           ISTIO_META_CLUSTER_ID for those gateways
  --istio-auto-enabled            istio on for Gateways of the built-in class whose GwParameters leave istio.enabled unset
  --istio-network                 refused: not implemented (docs/controller-cli.md)`;

const env = (flag: string) => process.env[`GW_${flag.toUpperCase().replace(/-/g, '_')}`];

function port(flag: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  // 0 picks a free port (tests, several local controllers on one machine).
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`--${flag} must be between 0 and 65535, got ${JSON.stringify(v)}`);
  return n;
}

function json<T>(flag: string, v: string | undefined, dflt: T, check: (x: unknown) => boolean): T {
  if (v === undefined) return dflt;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    throw new Error(`--${flag} must be JSON, got ${JSON.stringify(v)}`);
  }
  if (!check(parsed)) throw new Error(`--${flag} has the wrong shape`);
  return parsed as T;
}

type ValueFlag = (typeof VALUE_FLAGS)[number];
type BoolFlag = (typeof BOOL_FLAGS)[number];

/** A flag's value: the command line first, then its GW_* environment variable. */
interface FlagReader {
  val(f: ValueFlag): string | undefined;
  bool(f: BoolFlag): boolean | undefined;
}

/** Parses argv (and GW_* environment variables) into a config; throws an Error with a one-line message. */
export function parseControllerFlags(argv: string[]): ControllerConfig {
  const flags = readFlags(argv);
  const cfg = { ...requiredSettings(flags), ...optionalSettings(flags) } as ControllerConfig;
  checkLocalMode(cfg);
  return cfg;
}

function readFlags(argv: string[]): FlagReader {
  const values: Record<string, string | undefined> = {};
  const bools: Record<string, boolean | undefined> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(arg)}`);
    const [raw, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if ((BOOL_FLAGS as readonly string[]).includes(raw)) bools[raw] = inline === undefined ? true : inline !== 'false';
    else if (raw.startsWith('no-') && (BOOL_FLAGS as readonly string[]).includes(raw.slice(3)))
      bools[raw.slice(3)] = false;
    else if ((VALUE_FLAGS as readonly string[]).includes(raw)) {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`--${raw} needs a value`);
      values[raw] = v;
    } else throw new Error(`unknown flag --${raw}`);
  }
  return {
    val: (f) => values[f] ?? env(f),
    bool: (f) => bools[f] ?? (env(f) === undefined ? undefined : env(f) === 'true'),
  };
}

/** The settings every controller has, defaulted. */
function requiredSettings({ val, bool }: FlagReader): ControllerConfig {
  // Local runs are loopback-only and have no Secret to keep a CA in: plaintext unless asked otherwise.
  const xdsMode = val('xds-mode') ?? (val('manifests') === undefined ? 'tls' : 'plaintext');
  if (!['plaintext', 'tls', 'either'].includes(xdsMode))
    throw new Error(`--xds-mode must be plaintext, tls or either, got ${JSON.stringify(xdsMode)}`);
  const logFormat = val('log-format') ?? 'json';
  if (logFormat !== 'json' && logFormat !== 'text')
    throw new Error(`--log-format must be json or text, got ${JSON.stringify(logFormat)}`);
  return {
    controllerName: val('controller-name') ?? DEFAULT_CONTROLLER_NAME,
    gatewayClassName: val('gateway-class-name') ?? 'gw',
    gatewayClassParametersRefs: json(
      'gateway-class-parameters-refs',
      val('gateway-class-parameters-refs'),
      {},
      (x) => typeof x === 'object' && x !== null && !Array.isArray(x),
    ),
    discoveryNamespaceSelectors: json(
      'discovery-namespace-selectors',
      val('discovery-namespace-selectors'),
      [],
      Array.isArray,
    ),
    gatewayNamespaces: (val('gateway-namespaces') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    xdsMode: xdsMode as ControllerConfig['xdsMode'],
    xdsPort: port('xds-port', val('xds-port'), 9978),
    healthPort: port('health-port', val('health-port'), 9093),
    metricsPort: port('metrics-port', val('metrics-port'), 9092),
    enableModels: bool('enable-models') ?? false,
    enableXbackend: bool('enable-xbackend') ?? false,
    enableInferenceExtension: bool('enable-inference-extension') ?? false,
    logLevel: (val('log-level') ?? 'info') as LevelWithSilent,
    logFormat,
    istio: istioSettings({ val, bool }),
    once: bool('once') ?? false,
    ...adminSettings({ val, bool }),
  };
}

export const DEFAULT_CONTROLLER_ADMIN_ADDRESS = '127.0.0.1:9094';

/** The fleet UI's address: the built-in default is optional (a taken port costs the UI, not the start). */
function adminSettings({ val }: FlagReader): Pick<ControllerConfig, 'admin'> {
  const given = val('admin-address');
  const tokenFile = val('admin-token-file');
  if (given === 'off') {
    if (tokenFile) throw new Error('--admin-token-file is given with --admin-address off: say which one is meant');
    return {};
  }
  // A token on the default address is applied, and asks for the UI (its start failing stops the start), as on the proxy.
  if (given === undefined)
    return {
      admin: { address: DEFAULT_CONTROLLER_ADMIN_ADDRESS, ...(tokenFile ? { tokenFile } : { optional: true }) },
    };
  const parsed = parseAddress(given);
  if (!parsed) throw new Error(`--admin-address must look like host:port or be off, got ${JSON.stringify(given)}`);
  if (!tokenFile && !isLoopbackName((parsed.host ?? '').toLowerCase()))
    throw new Error(`--admin-address ${given}: off loopback the fleet UI needs --admin-token-file`);
  return { admin: { address: given, ...(tokenFile ? { tokenFile } : {}) } };
}

/**
 * The chart's `istio.*` as deployer defaults (GwParameters `istio` wins), and `autoEnabled` as istio.enabled's
 * default for the built-in class. What the controller cannot act on is refused at start, never accepted and
 * dropped: `istio.enabled` only grants RBAC, so it has no flag.
 */
function istioSettings({ val, bool }: FlagReader): MeshDefaults {
  if (val('istio-network'))
    throw new Error(
      '--istio-network (chart istio.network) is not supported: the proxy does no multi-network routing (east-west gateways), as GwParameters istio.network is refused',
    );
  const caAddress = val('istio-ca-address');
  const namespace = val('istio-namespace');
  const revision = val('istio-revision');
  if (caAddress && (namespace || revision))
    throw new Error(
      `--istio-${namespace ? 'namespace' : 'revision'} names istiod's Service for the default CA address, and --istio-ca-address already gives it: set one or the other`,
    );
  const clusterId = val('istio-cluster-id');
  // Nothing set is Istio's own default, istiod in istio-system: a gateway that turns istio on always gets a
  // CA address (the proxy refuses to start without one).
  return {
    caAddress: caAddress || istiodAddress(namespace || 'istio-system', revision),
    ...(clusterId ? { clusterId } : {}),
    // Mesh integration on by default for the built-in class's Gateways; GwParameters istio.enabled: false opts out.
    ...(bool('istio-auto-enabled') ? { autoEnabledClass: val('gateway-class-name') ?? 'gw' } : {}),
  };
}

/** istiod's CA port on its Service, `istiod-<revision>` for a revisioned control plane (Istio's own naming). */
function istiodAddress(namespace: string, revision: string | undefined): string {
  return `istiod${revision ? `-${revision}` : ''}.${namespace}.svc:15012`;
}

/** Settings left out of the config when not given. */
function optionalSettings({ val, bool }: FlagReader): Partial<ControllerConfig> {
  const optional = {
    kubeconfig: val('kubeconfig') ?? process.env.KUBECONFIG,
    manifests: val('manifests'),
    statusDir: val('status-dir'),
    xdsCaDir: val('xds-ca-dir'),
    leaderElect: bool('leader-elect'),
    leaderElectionNamespace: val('leader-election-namespace') ?? process.env.POD_NAMESPACE,
    proxyImage: val('proxy-image'),
    serviceName: val('service-name') ?? process.env.GW_CONTROLLER_SERVICE_NAME,
    serviceNamespace: val('service-namespace'),
    releaseName: val('release-name'),
    otlpTracesUrl: val('otlp-traces-url'),
  };
  return Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined));
}

/** Flags that only make sense together (or only in local mode). */
function checkLocalMode(cfg: ControllerConfig): void {
  if (cfg.statusDir && !cfg.manifests) throw new Error('--status-dir is only for local mode; add --manifests DIR');
  if (cfg.xdsCaDir && !cfg.manifests)
    throw new Error('--xds-ca-dir is only for local mode (in a cluster the CA lives in a Secret); add --manifests DIR');
  if (cfg.manifests && cfg.xdsMode !== 'plaintext' && !cfg.xdsCaDir && !cfg.once) {
    throw new Error(
      `local mode with --xds-mode ${cfg.xdsMode} needs --xds-ca-dir DIR: the CA is kept there and proxies trust DIR/ca.crt (--xds-ca)`,
    );
  }
  const traces = cfg.otlpTracesUrl;
  if (traces !== undefined && !(URL.canParse(traces) && /^https?:$/.test(new URL(traces).protocol)))
    throw new Error(`--otlp-traces-url must be an http(s) URL (OTLP/HTTP), got ${JSON.stringify(traces)}`);
  if (cfg.releaseName !== undefined && !/^[a-z0-9]([-a-z0-9.]{0,200}[a-z0-9])?$/.test(cfg.releaseName))
    throw new Error(`--release-name must be a lower-case DNS name, got ${JSON.stringify(cfg.releaseName)}`);
}

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let cfg: ControllerConfig;
  try {
    cfg = parseControllerFlags(argv);
  } catch (err) {
    console.error(`gw controller: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const logger = createLogger({ level: cfg.logLevel, format: cfg.logFormat, name: 'controller' });
  const ui = cfg.admin ? await controllerUi(cfg.admin, logger) : undefined;
  if (!cfg.manifests) {
    const { runClusterController } = await import('../controller/run-cluster.js');
    return runClusterController(cfg, logger, undefined, ui);
  }
  if (cfg.once) {
    const { runLocal } = await import('../controller/local/run-local.js');
    return runLocal(cfg, logger);
  }
  const { serveLocal } = await import('../controller/local/serve-local.js');
  return serveLocal(cfg, logger, undefined, ui);
}

/** The fleet UI on the proxy's admin server (the controller may not import the proxy; the CLI may). */
export async function controllerUi(admin: NonNullable<ControllerConfig['admin']>, log: Logger): Promise<ControllerUi> {
  const { startAdmin } = await import('../proxy/admin/server.js');
  const { uiDir } = await import('../proxy/admin/ui-dir.js');
  const { version } = await import('./version.js');
  return {
    gwVersion: version(),
    start: async (api) => {
      try {
        return await startAdmin({
          address: admin.address,
          ...(admin.tokenFile ? { tokenFile: admin.tokenFile } : {}),
          uiDir: uiDir(),
          api,
        });
      } catch (err) {
        if (!admin.optional) throw err;
        log.warn(
          { err: (err as Error).message },
          'fleet UI not started (the default port is taken); set --admin-address',
        );
        return undefined;
      }
    },
  };
}
