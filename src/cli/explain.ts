// `gw explain route <ns>/<name>[/<rule>]`: why a route behaves as it does, from files or a cluster.
import { formatProblem } from '../problem.js';
import { DEFAULT_CONTROLLER_NAME } from '../translate/objects/context.js';
import { explainRoute, parseRouteArg, renderExplanation } from '../translate/status/explain.js';
import { translateAll } from '../translate/state.js';
import { createStore, getObject, putObject, type Store } from '../translate/objects/store.js';
import { readFolder } from '../controller/local/files.js';
import { readClusterStore } from '../controller/cluster-read.js';
import { KubeClient, loadKubeConfig } from '../controller/kube-client.js';

const USAGE = `Usage: gw explain route <namespace>/<name>[/<rule>] [--manifests DIR | --kubeconfig PATH] [--kind HTTPRoute|GRPCRoute] [--output text|json]
                 [--controller-name NAME] [--gateway-class-name NAME] [--enable-models] [--enable-inference-extension]

Prints the effective merged policy of a route, field by field: the value, the object that set it and
the objects it overrode; then the backend settings per backend (and per MCP target or AI provider), and
the policies aimed at the route that are not in effect, with the reason from their status.
Without --manifests it reads the cluster of --kubeconfig (else $KUBECONFIG, else in-cluster).`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  let enableModels = false;
  let enableInferenceExtension = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--enable-models') enableModels = true;
    else if (a === '--enable-inference-extension') enableInferenceExtension = true;
    else if (a.startsWith('--')) {
      const v = argv[++i];
      if (v === undefined) return usageError(`${a} needs a value`);
      flags[a.slice(2)] = v;
    } else positional.push(a);
  }
  const [what, target] = positional;
  if (what !== 'route' || target === undefined || positional.length > 2)
    return usageError('expected: route <namespace>/<name>[/<rule>]');
  const ref = parseRouteArg(target);
  if (!ref) return usageError(`route must be <namespace>/<name>[/<rule>], got ${JSON.stringify(target)}`);
  const kind = flags.kind ?? 'HTTPRoute';
  if (kind !== 'HTTPRoute' && kind !== 'GRPCRoute')
    return usageError(`--kind must be HTTPRoute or GRPCRoute, got ${JSON.stringify(kind)}`);
  const output = flags.output ?? 'text';
  if (output !== 'text' && output !== 'json')
    return usageError(`--output must be text or json, got ${JSON.stringify(output)}`);
  const dir = flags.manifests;
  const controllerName = flags['controller-name'] ?? DEFAULT_CONTROLLER_NAME;
  const className = flags['gateway-class-name'] ?? 'gw';
  const store = dir
    ? storeFromFolder(dir)
    : await storeFromCluster(flags.kubeconfig, { enableModels, enableInferenceExtension });
  if (!store) return 2;
  const where = dir ?? 'the cluster';
  if (!getObject(store, 'GatewayClass', className)) {
    putObject(
      store,
      'GatewayClass',
      { kind: 'GatewayClass', metadata: { name: className }, spec: { controllerName } },
      'built-in',
    );
  }
  if (!getObject(store, kind, `${ref.namespace}/${ref.name}`)) {
    console.error(`gw explain: ${kind} ${ref.namespace}/${ref.name} is not in ${where}`);
    return 1;
  }
  const now = new Date(0).toISOString();
  const state = translateAll(store, { controllerName, now, enableModels, enableInferenceExtension });
  const e = explainRoute(state, kind, ref.namespace, ref.name, ref.rule);
  if (output === 'json') console.log(JSON.stringify(e, null, 2));
  else process.stdout.write(renderExplanation(e));
  return 0;
}

function storeFromFolder(dir: string): Store | undefined {
  const store = createStore();
  let folder;
  try {
    folder = readFolder(dir);
  } catch (err) {
    console.error(`gw explain: cannot read ${dir}: ${(err as Error).message}`);
    return undefined;
  }
  for (const p of folder.problems) console.error(formatProblem(p));
  for (const [source, objects] of folder.files)
    for (const { kind: k, obj } of objects)
      for (const p of putObject(store, k, obj, source).problems) console.error(formatProblem(p));
  return store;
}

async function storeFromCluster(
  kubeconfig: string | undefined,
  opts: { enableModels: boolean; enableInferenceExtension: boolean },
): Promise<Store | undefined> {
  try {
    const read = await readClusterStore(new KubeClient(loadKubeConfig(kubeconfig)), opts);
    for (const s of read.skipped) console.error(`gw explain: ${s.kind} left out: ${s.reason}`);
    for (const p of read.problems) console.error(formatProblem(p));
    return read.store;
  } catch (err) {
    console.error(`gw explain: cannot read the cluster: ${(err as Error).message}`);
    return undefined;
  }
}

function usageError(msg: string): number {
  console.error(`gw explain: ${msg}\n\n${USAGE}`);
  return 2;
}
