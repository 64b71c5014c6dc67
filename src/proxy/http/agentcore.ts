// GwBackend `aws.agentCore`: each request of a route is one InvokeAgentRuntime call,
// `POST /runtimes/{ARN}/invocations[?qualifier=]` on the runtime's regional endpoint, signed with SigV4
// (service `bedrock-agentcore`) from the edge's `backend.auth.aws` keys or the proxy's AWS environment. The HTTP forwarder does the rest
// (timeouts, retries, streaming the answer back). Behaviour: docs/proxy.md "AWS AgentCore backends".
import type { AiCredential__Output as AiCredential } from '../../ir/gen/gw/ir/v1/AiCredential.js';
import type { AwsBackend } from '../../ir/types.js';
import type { HeaderMap } from './route-filters.js';
import { CloudAuthFailure, type CloudAuth } from '../llm/cloud-auth.js';

export const AGENTCORE_SERVICE = 'bedrock-agentcore';
/** Overrides the endpoint (scheme, host, port) of every AgentCore backend: AWS PrivateLink endpoints, tests. */
export const ENDPOINT_ENV = 'GW_AGENTCORE_ENDPOINT';

const ARN = /^arn:(aws[a-z-]*):bedrock-agentcore:([a-z]{2}(?:-[a-z]+)+-\d+):(\d{12}):runtime\/[A-Za-z0-9_.\-/]+$/;

export interface AgentCoreTarget {
  arn: string;
  qualifier: string;
  region: string;
  /** The public endpoint's host, from the ARN's region and partition. */
  host: string;
}

/** The target of an AgentCore backend, or why its ARN cannot be invoked (a sentence about `agentRuntimeArn`). */
export function agentCoreTargetOf(b: AwsBackend): AgentCoreTarget | string {
  const m = ARN.exec(b.agentRuntimeArn);
  if (!m)
    return `must be an AgentCore runtime ARN (arn:aws:bedrock-agentcore:<region>:<account>:runtime/<id>), got ${JSON.stringify(b.agentRuntimeArn)}`;
  const [, partition = 'aws', region = ''] = m;
  const suffix = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return { arn: b.agentRuntimeArn, qualifier: b.qualifier, region, host: `bedrock-agentcore.${region}.${suffix}` };
}

/** Path and query of the invoke call: the ARN is one path segment, so `:` and `/` are percent-encoded. */
export function invocationPath(t: AgentCoreTarget): string {
  const q = t.qualifier ? `?qualifier=${encodeURIComponent(t.qualifier)}` : '';
  return `/runtimes/${encodeURIComponent(t.arn)}/invocations${q}`;
}

/** Where calls go: `GW_AGENTCORE_ENDPOINT` when set (scheme://host[:port]), else https on the public host. */
export function endpointOf(
  t: AgentCoreTarget,
  env: Record<string, string | undefined>,
): { origin: string; authority: string } | CloudAuthFailure {
  const override = env[ENDPOINT_ENV]?.trim();
  if (!override) return { origin: `https://${t.host}`, authority: t.host };
  let url: URL;
  try {
    url = new URL(override);
  } catch {
    return new CloudAuthFailure('credential_missing', `${ENDPOINT_ENV} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return new CloudAuthFailure('credential_missing', `${ENDPOINT_ENV} must be an http or https URL`);
  return { origin: url.origin, authority: url.host };
}

/**
 * Client headers AWS must not see: the client's own credentials (`authorization`, `x-amz-*`; the
 * signature replaces them) and the framing headers the signed call sets itself.
 */
function forAws(headers: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  for (const [k, v] of Object.entries(headers)) {
    const key = k.toLowerCase();
    if (key === 'authorization' || key === 'host' || key.startsWith('x-amz-') || key === 'content-length') continue;
    out[key] = v;
  }
  return out;
}

export interface AgentCoreCall {
  origin: string;
  path: string;
  headers: HeaderMap;
}

/**
 * The signed `POST` of one try (signed per try: the signature carries the time). InvokeAgentRuntime has
 * no other method, so every request of the route becomes a POST. `headers` are the ones
 * the forwarder built for the backend (route header modifiers applied); the request's own path is not used.
 */
export async function agentCoreCall(
  auth: CloudAuth,
  t: AgentCoreTarget,
  headers: HeaderMap,
  body: Buffer,
  env: Record<string, string | undefined>,
  who: string,
  credential?: AiCredential | null,
): Promise<AgentCoreCall | CloudAuthFailure> {
  const endpoint = endpointOf(t, env);
  if (endpoint instanceof CloudAuthFailure) return endpoint;
  const path = invocationPath(t);
  const rawType = headers['content-type'];
  const contentType = (Array.isArray(rawType) ? rawType[0] : rawType) ?? 'application/json';
  // The edge's `backend.auth.aws` keys when it sets them (docs/proxy.md "Backend authentication"), else the environment's.
  const signed = await auth.headers(
    credential?.kind === 'aws' ? credential : { kind: 'aws', source: who },
    { method: 'POST', authority: endpoint.authority, path, contentType, body },
    { region: t.region, service: AGENTCORE_SERVICE },
    who,
  );
  if (signed instanceof CloudAuthFailure) return signed;
  if (!signed) return new CloudAuthFailure('credential_missing', `${who} could not be signed`);
  return {
    origin: endpoint.origin,
    path,
    headers: {
      ...forAws(headers),
      'content-type': contentType,
      host: endpoint.authority,
      'content-length': String(body.length),
      ...signed,
    },
  };
}
