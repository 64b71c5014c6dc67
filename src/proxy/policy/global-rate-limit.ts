// GwPolicy `traffic.rateLimit.global`: limits kept by an Envoy rate-limit service, so every replica counts
// against the same buckets. One ShouldRateLimit call per request (envoy.service.ratelimit.v3,
// proto/envoy/service/ratelimit/v3/rls.proto) with every descriptor whose entries evaluate; LLM token
// descriptors are checked with hits_addend 0 before the request and charged with the answer's tokens after it.
// Behaviour: docs/proxy.md "Rate limits".
import type { MethodDefinition } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { GlobalRateLimit } from '../../ir/types.js';
import { celWholeMapProblem, compileCel, expressionVariables, type CelBindings, type CompiledCel } from './cel/env.js';
import { celText } from './cel/snapshot-cel.js';
import { GrpcCallError, GrpcClients, grpcService, grpcTlsOf, grpcUrlOf, type GrpcTarget } from '../ext/grpc-clients.js';

/** The default deadline of a call: a limit check sits on every request's path. */
export const defaultGlobalLimitTimeoutMs = 500;

export interface GlobalLimitPlan {
  target: GrpcTarget;
  domain: string;
  failOpen: boolean;
  timeoutMs: number;
  descriptors: { entries: (readonly [string, CompiledCel])[]; tokens: boolean }[];
  /** Some entry names `llmRequest` or `llm`: the one call waits until the LLM forwarder has read the body. */
  afterBody: boolean;
}

/** A RateLimitDescriptor as proto-loader encodes it (`hitsAddend` a UInt64Value; 64-bit values as strings). */
interface Descriptor {
  entries: { key: string; value: string }[];
  hitsAddend?: { value: string };
}

interface HeaderValue {
  key: string;
  value: string;
  rawValue?: Buffer;
}

interface DescriptorStatus {
  code: number;
  currentLimit?: { unit: number } | null;
  durationUntilReset?: { seconds: string; nanos: number } | null;
}

interface RateLimitResponse {
  overallCode: number;
  statuses: DescriptorStatus[];
  responseHeadersToAdd: HeaderValue[];
}

const OVER_LIMIT = 2;
/** RateLimitResponse.RateLimit.Unit → seconds: the wait when the service gives no duration_until_reset. */
const UNIT_SECONDS = [1, 1, 60, 3600, 86400, 30 * 86400, 365 * 86400, 7 * 86400];

export type LimitDecision =
  | {
      kind: 'allow';
      /** The service's response_headers_to_add (x-ratelimit-*), for the client's answer. */
      headers: Record<string, string>;
      /** The token descriptors this request matched, charged with the LLM answer's tokens. */
      tokens: Descriptor[];
    }
  | { kind: 'limited'; headers: Record<string, string>; retryAfterSeconds: number }
  | { kind: 'unavailable'; reason: string };

/** The compiled entry, whether it needs the LLM request body, or why it cannot be enforced on this route. */
function compileEntry(expression: string, llmRoute: boolean): { cel: CompiledCel; afterBody: boolean } | string {
  const whole = celWholeMapProblem(expression);
  if (whole) return whole;
  try {
    return { cel: compileCel(expression, expressionVariables.globalRateLimit), afterBody: false };
  } catch (err) {
    if (!llmRoute) return (err as Error).message;
    try {
      return { cel: compileCel(expression, expressionVariables.globalRateLimitLlm), afterBody: true };
    } catch (e) {
      return (e as Error).message;
    }
  }
}

/** The plan of an IR setting, its expressions compiled once per snapshot; a string says why it cannot be enforced. */
export function compileGlobalRateLimit(p: GlobalRateLimit, llmRoute: boolean): GlobalLimitPlan | string {
  const url = grpcUrlOf(p.url);
  if (typeof url === 'string') return url;
  const secure = url.protocol === 'grpcs:';
  const tls = grpcTlsOf(p.tls, secure);
  const descriptors: GlobalLimitPlan['descriptors'] = [];
  let afterBody = false;
  for (const [i, d] of p.descriptors.entries()) {
    const entries: (readonly [string, CompiledCel])[] = [];
    for (const [j, e] of d.entries.entries()) {
      const compiled = compileEntry(e.expression, llmRoute);
      if (typeof compiled === 'string') return `descriptors[${i}].entries[${j}].expression ${compiled}`;
      entries.push([e.key, compiled.cel]);
      afterBody ||= compiled.afterBody;
    }
    descriptors.push({ entries, tokens: d.tokens });
  }
  return {
    target: { address: `${url.hostname}:${url.port || (secure ? '443' : '80')}`, ...(tls ? { tls } : {}) },
    domain: p.domain,
    failOpen: p.failOpen,
    timeoutMs: p.timeoutMs || defaultGlobalLimitTimeoutMs,
    descriptors,
    afterBody,
  };
}

/** The descriptors of a request: one whose entry fails or is not text is left out (as Envoy drops a descriptor an action cannot fill). */
function descriptorsOf(plan: GlobalLimitPlan, bindings: CelBindings): { requests: Descriptor[]; tokens: Descriptor[] } {
  const out = { requests: [] as Descriptor[], tokens: [] as Descriptor[] };
  for (const d of plan.descriptors) {
    const entries: Descriptor['entries'] = [];
    for (const [key, cel] of d.entries) {
      const value = celText(cel.evaluate(bindings));
      if (typeof value !== 'string') break;
      entries.push({ key, value });
    }
    if (entries.length !== d.entries.length) continue;
    (d.tokens ? out.tokens : out.requests).push({ entries });
  }
  return out;
}

function headersOf(r: RateLimitResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of r.responseHeadersToAdd)
    if (/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(h.key))
      out[h.key.toLowerCase()] = h.value || (h.rawValue?.toString('latin1') ?? '');
  return out;
}

function retryAfterOf(r: RateLimitResponse): number {
  let wait = 0;
  for (const s of r.statuses) {
    if (s.code !== OVER_LIMIT) continue;
    const reset = s.durationUntilReset;
    const seconds = reset
      ? Number(reset.seconds) + (reset.nanos > 0 ? 1 : 0)
      : (UNIT_SECONDS[s.currentLimit?.unit ?? 0] ?? 1);
    wait = Math.max(wait, seconds);
  }
  return Math.max(1, wait);
}

function method(): MethodDefinition<object, RateLimitResponse> {
  const service = grpcService('envoy/service/ratelimit/v3/rls.proto', 'envoy.service.ratelimit.v3.RateLimitService');
  return service.ShouldRateLimit as MethodDefinition<object, RateLimitResponse>;
}

/** The client of every route's rate-limit service: one channel per service, kept across snapshots. */
export class GlobalRateLimits {
  private readonly grpc = new GrpcClients();

  constructor(private readonly log: Logger) {}

  /** Opens the channel to a plan's service when a snapshot is applied, and loads the protocol, before any request waits. */
  connect(plan: GlobalLimitPlan): void {
    method();
    this.grpc.connect(plan.target);
  }

  /** Asks the service about one request; no matching descriptor means no call. */
  async check(plan: GlobalLimitPlan, bindings: CelBindings): Promise<LimitDecision> {
    const { requests, tokens } = descriptorsOf(plan, bindings);
    if (requests.length + tokens.length === 0) return { kind: 'allow', headers: {}, tokens };
    // Token descriptors are only checked now: their cost is known once the answer is.
    const descriptors = [...requests, ...tokens.map((d) => ({ ...d, hitsAddend: { value: '0' } }))];
    let answer: RateLimitResponse;
    try {
      answer = await this.grpc.unary(
        plan.target,
        method(),
        { domain: plan.domain, descriptors, hitsAddend: 1 },
        { deadlineMs: plan.timeoutMs },
      );
    } catch (err) {
      const reason = err instanceof GrpcCallError ? err.code : 'INTERNAL';
      this.log.warn({ service: plan.target.address, reason }, 'global rate limit service did not answer');
      return { kind: 'unavailable', reason };
    }
    const headers = headersOf(answer);
    if (answer.overallCode === OVER_LIMIT) return { kind: 'limited', headers, retryAfterSeconds: retryAfterOf(answer) };
    return { kind: 'allow', headers, tokens };
  }

  /** Charges an LLM answer's tokens to the token descriptors its request matched (after the answer: nobody waits). */
  charge(plan: GlobalLimitPlan, descriptors: Descriptor[], tokens: number): void {
    if (descriptors.length === 0 || tokens <= 0) return;
    const hitsAddend = Math.min(Math.floor(tokens), 0xffffffff);
    this.grpc
      .unary(plan.target, method(), { domain: plan.domain, descriptors, hitsAddend }, { deadlineMs: plan.timeoutMs })
      .catch((err: unknown) => {
        const reason = err instanceof GrpcCallError ? err.code : 'INTERNAL';
        this.log.warn({ service: plan.target.address, reason, tokens: hitsAddend }, 'global token charge failed');
      });
  }

  close(): void {
    this.grpc.close();
  }
}
