// GwModel `spec.custom.backendRef`: a Service in the model's namespace (called at its cluster DNS name, as
// HTTPRoute Service backends are) or an InferencePool (its ready Pods' endpoints and its endpoint picker).
// Behaviour: docs/llm-providers.md "GwModel backendRef".
import type { GwModelSpec } from '../../api/index.js';
import type { InferencePoolTargetInput } from '../../ir/types.js';
import { serviceHost } from '../backends/backends.js';
import { serviceSpec } from '../objects/gateway-api.js';
import { lookup, read, type Ctx } from '../objects/context.js';
import { readyEndpoints } from '../objects/endpoint-slices.js';
import { inferencePoolSpec, readyPodIp } from '../objects/inference-pool.js';
import { selectorMatches } from '../objects/read.js';

export const INFERENCE_GROUP = 'inference.networking.k8s.io';

/** Where a GwModel with a backendRef is called: base URL, and for a pool its endpoints; or why not. */
export type ModelBackend = { baseUrl: string; inferencePool?: InferencePoolTargetInput } | { problem: string };

const PATH = 'spec.custom.backendRef';

/** The backendRef resolved, or undefined when the GwModel has none. */
export function modelBackend(ctx: Ctx, ns: string, spec: GwModelSpec): ModelBackend | undefined {
  const ref = spec.custom?.backendRef;
  if (!ref) return undefined;
  // The baseURL's path stays the API prefix; its host is replaced by the reference.
  const prefix = basePath(spec.baseURL);
  if ((ref.kind ?? 'Service') === 'Service') {
    if ((ref.group ?? '') !== '') return { problem: `${PATH}.group: a Service is in the core group, got ${ref.group}` };
    if (!read(ctx, 'Service', `${ns}/${ref.name}`))
      return { problem: `${PATH}: Service ${ns}/${ref.name} does not exist` };
    return { baseUrl: `http://${serviceHost(ref.name, ns)}:${ref.port ?? 0}${prefix}` };
  }
  if ((ref.group ?? INFERENCE_GROUP) !== INFERENCE_GROUP)
    return { problem: `${PATH}.group: an InferencePool is in ${INFERENCE_GROUP}, got ${ref.group}` };
  const pool = inferencePool(ctx, ns, ref.name);
  if ('problem' in pool) return pool;
  // The host is never dialled: the proxy calls the endpoint it picks, at this path.
  return { baseUrl: `http://${ref.name}.${ns}.inferencepool${prefix}`, inferencePool: pool };
}

function basePath(baseURL: string | undefined): string {
  if (!baseURL) return '';
  try {
    return new URL(baseURL).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

function inferencePool(ctx: Ctx, ns: string, name: string): InferencePoolTargetInput | { problem: string } {
  if (!ctx.options.enableInferenceExtension)
    return {
      problem: `${PATH}: InferencePool ${ns}/${name} cannot be resolved: the controller runs without --enable-inference-extension (chart value inferenceExtension.enabled)`,
    };
  const stored = read(ctx, 'InferencePool', `${ns}/${name}`);
  if (!stored) return { problem: `${PATH}: InferencePool ${ns}/${name} does not exist` };
  const pool = inferencePoolSpec(stored);
  if (!pool)
    return { problem: `${PATH}: InferencePool ${ns}/${name} has no spec.selector.matchLabels or spec.targetPorts` };
  const endpoints = new Set<string>();
  for (const pk of lookup(ctx, 'byNamespace', `Pod/${ns}`)) {
    const pod = read(ctx, 'Pod', pk);
    if (!pod || !selectorMatches({ matchLabels: pool.matchLabels }, pod.obj.metadata.labels)) continue;
    const ip = readyPodIp(pod.obj);
    if (ip) for (const port of pool.targetPorts) endpoints.add(ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);
  }
  const out: InferencePoolTargetInput = {
    name: `InferencePool ${ns}/${name}`,
    endpoints: [...endpoints].sort(),
    pickerUrl: '',
    pickerFailOpen: false,
    hasPicker: false,
  };
  const picker = pool.picker;
  if (!picker) return out;
  const at = `InferencePool ${ns}/${name} spec.endpointPickerRef`;
  if (picker.kind !== 'Service' || picker.group !== '')
    return { problem: `${PATH}: ${at} must name a Service, got ${picker.group || 'core'}/${picker.kind}` };
  if (!picker.port) return { problem: `${PATH}: ${at}.port is required for a Service` };
  const svc = read(ctx, 'Service', `${ns}/${picker.name}`);
  if (!svc) return { problem: `${PATH}: ${at}: Service ${ns}/${picker.name} does not exist` };
  const portName = (serviceSpec(svc).ports ?? []).find((p) => p.port === picker.port)?.name;
  if (portName === undefined)
    return { problem: `${PATH}: ${at}: Service ${ns}/${picker.name} has no port ${picker.port}` };
  // The picker is dialled at a ready endpoint of its Service (as Envoy-based gateways reach it through EDS);
  // none ready leaves the URL empty, and failureMode decides.
  const [first] = readyEndpoints(ctx, ns, picker.name, portName);
  return { ...out, pickerUrl: first ? `grpc://${first}` : '', pickerFailOpen: picker.failOpen, hasPicker: true };
}
