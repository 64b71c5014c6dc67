// The deployer's I/O half, leader only: resolve a Gateway's GwParameters from the store, render its
// proxy workload (pure, src/deployer), make sure the session-key Secret exists, server-side apply each
// rendered object as `gw-controller` with force, skip those whose applied hash is unchanged, and
// prune labelled objects no longer rendered. Failures become Gateway conditions, never a crash.
import { createHash, randomBytes } from 'node:crypto';
import {
  renderGatewayWorkload,
  sessionKeySecret,
  sessionKeySecretName,
  GATEWAY_LABEL,
  type DeployerOptions,
  type GatewayInput,
  type KubeObject,
  type ParametersInput,
} from '../deployer/render.js';
import { MANAGED_BY, workloadName } from '../deployer/naming.js';
import { SESSION_KEY_SECRET_KEY } from '../deployer/pod-template.js';
import { formatProblem } from '../problem.js';
import { condition } from '../translate/status/conditions.js';
import { rec, stableStringify, str } from '../translate/objects/read.js';
import { getObject, type Store } from '../translate/objects/store.js';
import type { StoredObject } from '../translate/objects/types.js';
import type { DeployContext } from './cluster.js';
import { isStatus, type KubeClient } from './kube-client.js';
import { DEPLOYED, resourceFor, resourcePath, type Resource } from './resources.js';
import type { Result } from './workers.js';
import { publishCaBundle } from './xds-glue.js';

export const FIELD_MANAGER = 'gw-controller';
/** Hash of the rendered object as last applied: an unchanged render is not sent again. */
export const APPLIED_HASH_ANNOTATION = 'gw.dev/applied-hash';

export interface DeployApplyOptions {
  render: DeployerOptions;
  /** `--gateway-class-parameters-refs`: class name → GwParameters, for classes without parametersRef. */
  classParametersRefs?: Record<string, { name: string; namespace: string }>;
  now: () => string;
  /** The xDS CA bundle (tls and either modes): published as a ConfigMap in each Gateway's namespace. */
  caBundle?: () => string | undefined;
}

export function createDeployer(o: DeployApplyOptions): (ctx: DeployContext) => Promise<Result> {
  return async (ctx) => {
    const entry = getObject(ctx.store, 'Gateway', ctx.gateway);
    if (!entry?.obj.metadata.uid) return {};
    const gen = entry.obj.metadata.generation ?? 0;
    const gw = gatewayInput(entry);
    const params = resolveParameters(ctx.store, entry, o.classParametersRefs ?? {});
    if (params.problem) {
      ctx.setConditions([condition('Accepted', false, 'InvalidParameters', params.problem, gen, o.now())]);
      return {};
    }
    try {
      const checksum = await ensureSessionKey(ctx.client, ctx.store, gw);
      const rendered = renderGatewayWorkload({
        gateway: gw,
        options: o.render,
        sessionKeyChecksum: checksum,
        ...(params.classParameters ? { classParameters: params.classParameters } : {}),
        ...(params.gatewayParameters ? { gatewayParameters: params.gatewayParameters } : {}),
      });
      if (rendered.problems.length) {
        ctx.setConditions([
          condition(
            'Accepted',
            false,
            'InvalidParameters',
            rendered.problems.map(formatProblem).join('; '),
            gen,
            o.now(),
          ),
        ]);
        return {};
      }
      const ca = o.caBundle?.();
      // Proxies would mount a bundle that is not there yet: wait for the xDS server's CA.
      if (o.caBundle && !ca) return { requeueAfter: 1_000 };
      if (ca) await publishCaBundle(ctx.client, gw.metadata.namespace, ca, o.render.xdsCaConfigMap);
      for (const obj of rendered.objects) await applyObject(ctx.client, obj);
      await prune(ctx.client, gw, rendered.objects);
      ctx.setConditions([]);
      return {};
    } catch (err) {
      const message = `applying the proxy workload failed: ${err instanceof Error ? err.message : String(err)}`;
      ctx.setConditions([condition('Programmed', false, 'ApplyFailed', message.slice(0, 1000), gen, o.now())]);
      // Thrown: the work queue retries with per-key exponential backoff.
      throw err;
    }
  };
}

function gatewayInput(e: StoredObject): GatewayInput {
  const spec = rec(e.obj.spec) ?? {};
  const infra = rec(spec.infrastructure);
  return {
    apiVersion: e.obj.apiVersion ?? 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: {
      name: e.obj.metadata.name,
      namespace: e.obj.metadata.namespace ?? 'default',
      uid: e.obj.metadata.uid ?? '',
    },
    spec: {
      gatewayClassName: str(spec.gatewayClassName) ?? '',
      listeners: (Array.isArray(spec.listeners) ? spec.listeners : []).map((l) => ({
        name: str(rec(l)?.name) ?? '',
        port: Number(rec(l)?.port ?? 0),
        protocol: str(rec(l)?.protocol) ?? 'HTTP',
      })),
      ...(infra
        ? {
            infrastructure: {
              ...(rec(infra.labels) ? { labels: infra.labels as Record<string, string> } : {}),
              ...(rec(infra.annotations) ? { annotations: infra.annotations as Record<string, string> } : {}),
            },
          }
        : {}),
    },
  };
}

interface ResolvedRefs {
  classParameters?: ParametersInput;
  gatewayParameters?: ParametersInput;
  problem?: string;
}

/** Class level: the GatewayClass's parametersRef, else the chart's map; gateway level: infrastructure.parametersRef. */
function resolveParameters(
  store: Store,
  gw: StoredObject,
  classRefs: Record<string, { name: string; namespace: string }>,
): ResolvedRefs {
  const out: ResolvedRefs = {};
  const className = str(rec(gw.obj.spec)?.gatewayClassName) ?? '';
  const cls = getObject(store, 'GatewayClass', className);
  const classRef = rec(rec(cls?.obj.spec)?.parametersRef);
  const cref = classRef
    ? { name: str(classRef.name) ?? '', namespace: str(classRef.namespace) ?? '', kind: str(classRef.kind) }
    : classRefs[className];
  if (cref) {
    if ('kind' in cref && cref.kind !== undefined && cref.kind !== 'GwParameters')
      return {
        problem: `GatewayClass ${className} spec.parametersRef kind ${cref.kind} is not supported; use GwParameters`,
      };
    const p = getObject(store, 'GwParameters', `${cref.namespace}/${cref.name}`);
    if (!p)
      return { problem: `GwParameters ${cref.namespace}/${cref.name} of GatewayClass ${className} does not exist` };
    if (p.problems.length)
      return {
        problem: `GwParameters ${cref.namespace}/${cref.name} is invalid: ${p.problems.map(formatProblem).join('; ')}`,
      };
    out.classParameters = {
      metadata: { name: p.obj.metadata.name, namespace: p.obj.metadata.namespace ?? '' },
      spec: (p.obj.spec ?? {}) as ParametersInput['spec'],
    };
  }
  const gref = rec(rec(rec(gw.obj.spec)?.infrastructure)?.parametersRef);
  if (gref) {
    const key = `${gw.obj.metadata.namespace ?? ''}/${str(gref.name) ?? ''}`;
    const p = getObject(store, 'GwParameters', key);
    if (str(gref.kind) !== 'GwParameters')
      return {
        problem: `spec.infrastructure.parametersRef kind ${str(gref.kind) ?? ''} is not supported; use GwParameters`,
      };
    if (!p) return { problem: `GwParameters ${key} does not exist` };
    if (p.problems.length)
      return { problem: `GwParameters ${key} is invalid: ${p.problems.map(formatProblem).join('; ')}` };
    out.gatewayParameters = {
      metadata: { name: p.obj.metadata.name, namespace: p.obj.metadata.namespace ?? '' },
      spec: (p.obj.spec ?? {}) as ParametersInput['spec'],
    };
  }
  return out;
}

/** Creates the session-key Secret with 32 random bytes when absent and never rewrites it; returns its checksum. */
async function ensureSessionKey(client: KubeClient, store: Store, gw: GatewayInput): Promise<string> {
  const name = sessionKeySecretName(gw);
  const ns = gw.metadata.namespace;
  const secretRes = DEPLOYED.find((d) => d.kind === 'Secret')!;
  let data = rec(getObject(store, 'Secret', `${ns}/${name}`)?.obj.data);
  if (!data) {
    try {
      await client.request('POST', resourcePath(secretRes, ns), { body: sessionKeySecret(gw, randomBytes(32)) });
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
    }
    data = rec((await client.request<{ data?: unknown }>('GET', resourcePath(secretRes, ns, name))).data);
  }
  const key = str(data?.[SESSION_KEY_SECRET_KEY]) ?? '';
  return createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex');
}

function resourceOf(obj: KubeObject): Resource {
  const res = resourceFor(obj.apiVersion, obj.kind);
  if (!res)
    throw new Error(
      `the deployer rendered ${obj.apiVersion} ${obj.kind}, which the controller does not know how to apply`,
    );
  return res;
}

async function applyObject(client: KubeClient, obj: KubeObject): Promise<void> {
  const res = resourceOf(obj);
  const meta = obj.metadata as { name: string; namespace: string; annotations?: Record<string, string> };
  const hash = createHash('sha256').update(stableStringify(obj)).digest('hex').slice(0, 16);
  try {
    const live = await client.request<{ metadata?: { annotations?: Record<string, string> } }>(
      'GET',
      resourcePath(res, meta.namespace, meta.name),
    );
    if (live.metadata?.annotations?.[APPLIED_HASH_ANNOTATION] === hash) return;
  } catch (err) {
    if (!isStatus(err, 404)) throw err;
  }
  const body = {
    ...obj,
    metadata: { ...meta, annotations: { ...(meta.annotations ?? {}), [APPLIED_HASH_ANNOTATION]: hash } },
  };
  await client.request('PATCH', resourcePath(res, meta.namespace, meta.name), {
    body,
    contentType: 'application/apply-patch+yaml',
    query: { fieldManager: FIELD_MANAGER, force: true },
  });
}

/** Deletes objects of this Gateway (by label and owner uid) that the render no longer produces. */
async function prune(client: KubeClient, gw: GatewayInput, rendered: KubeObject[]): Promise<void> {
  const keep = new Set(rendered.map((o) => `${o.kind}/${String((o.metadata as { name: string }).name)}`));
  keep.add(`Secret/${sessionKeySecretName(gw)}`);
  const labelSelector = `${GATEWAY_LABEL}=${workloadName(gw)},app.kubernetes.io/managed-by=${MANAGED_BY}`;
  for (const res of DEPLOYED) {
    const list = await client.request<{ items: { metadata: { name: string; ownerReferences?: { uid: string }[] } }[] }>(
      'GET',
      resourcePath(res, gw.metadata.namespace),
      { query: { labelSelector } },
    );
    for (const item of list.items) {
      if (keep.has(`${res.kind}/${item.metadata.name}`)) continue;
      if (!item.metadata.ownerReferences?.some((r) => r.uid === gw.metadata.uid)) continue;
      try {
        await client.request('DELETE', resourcePath(res, gw.metadata.namespace, item.metadata.name), {
          body: { propagationPolicy: 'Background' },
        });
      } catch (err) {
        if (!isStatus(err, 404)) throw err;
      }
    }
  }
}
