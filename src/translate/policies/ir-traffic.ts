// GwPolicy `traffic` (merged, one value per field) → the typed IR `TrafficPolicy` the proxy enforces. The
// merged values were validated against the schema, so they are read as the schema's own types.
import type { TrafficPolicy as ApiTraffic, DirectResponsePolicy } from '../../api/traffic.js';
import type { BufferLimitInput, DirectResponseInput, HeaderModifierInput, TrafficPolicyInput } from '../../ir/types.js';
import { parseDurationMs } from '../../ir/duration.js';
import { parseByteSize } from './byte-size.js';
import { transformationInput } from './ir-transformation.js';
import { sectionOf, type EffectiveFields } from './policy-sections.js';

type Field<K extends keyof ApiTraffic> = NonNullable<ApiTraffic[K]>;
type HeaderStep = NonNullable<Field<'headerModifiers'>['request']>;
type Limit = NonNullable<Field<'buffer'>['request']>;

const UNIT_MS = { Seconds: 1000, Minutes: 60_000, Hours: 3_600_000 } as const;
/** The schema's default of `buffer.*.maxBytes`. */
const DEFAULT_BUFFER_BYTES = 2 * 1024 * 1024;

const ms = (d: string | undefined): number => (d === undefined ? 0 : (parseDurationMs(d) ?? 0));

/** The typed traffic policy of merged fields (`traffic.x` → value); undefined when none of them is set. */
export function typedTraffic(fields: EffectiveFields): TrafficPolicyInput | undefined {
  const traffic = sectionOf(fields, 'traffic');
  const out: TrafficPolicyInput = {};
  const t = traffic.timeouts;
  if (t && (ms(t.request) || ms(t.backendRequest)))
    out.timeouts = { requestMs: ms(t.request), backendRequestMs: ms(t.backendRequest) };
  const r = traffic.retry;
  if (r) {
    out.retry = { attempts: r.attempts ?? 1, codes: r.codes ?? [] };
    if (r.backoff !== undefined) out.retry.backoffMs = ms(r.backoff);
  }
  const h = traffic.headerModifiers;
  if (h?.request) out.requestHeaders = headerModifier(h.request);
  if (h?.response) out.responseHeaders = headerModifier(h.response);
  const rl = traffic.rateLimit;
  if (rl?.local) {
    out.localRateLimits = rl.local.map((l) => ({
      ...(l.tokens !== undefined ? { tokens: l.tokens } : { requests: l.requests ?? 0 }),
      intervalMs: UNIT_MS[l.unit],
      burst: l.burst ?? 0,
    }));
  }
  const dr = traffic.directResponse;
  if (dr) out.directResponse = directResponse(dr);
  const d = traffic.delay;
  if (d) {
    const lit = parseDurationMs(d.duration);
    out.delay = lit !== undefined ? { durationMs: lit } : { expression: d.duration };
  }
  const host = traffic.hostRewrite;
  if (host !== undefined) out.hostRewrite = host;
  const b = traffic.buffer;
  if (b?.request) out.requestBuffer = bufferLimit(b.request);
  if (b?.response) out.responseBuffer = bufferLimit(b.response);
  if (traffic.transformation) out.transformation = transformationInput(traffic.transformation);
  const csrf = traffic.csrf;
  if (csrf) out.csrf = { additionalOrigins: csrf.additionalOrigins ?? [] };
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A Gateway API HTTPHeaderFilter (traffic.headerModifiers, GwModel policies.headers) as the IR HeaderModifier. */
export function headerModifier(s: HeaderStep): HeaderModifierInput {
  return { set: s.set ?? [], add: s.add ?? [], remove: s.remove ?? [] };
}

function bufferLimit(l: Limit): BufferLimitInput {
  return {
    maxBytes: String(parseByteSize(l.maxBytes) ?? DEFAULT_BUFFER_BYTES),
    failOpen: l.failureMode === 'FailOpen',
  };
}

type DirectFields = Pick<DirectResponsePolicy, 'status' | 'body' | 'bodyExpression' | 'headers'>;

function directResponse(d: DirectResponsePolicy): DirectResponseInput {
  const one = (x: DirectFields): DirectResponseInput => ({
    status: x.status ?? 0,
    body: x.body ?? '',
    ...(x.bodyExpression !== undefined ? { bodyExpression: x.bodyExpression } : {}),
    headers: (x.headers ?? []).map((hd) => ({ name: hd.name, valueExpression: hd.value })),
  });
  return {
    ...one(d),
    conditional: (d.conditional ?? []).map((c) => ({
      ...(c.condition !== undefined ? { condition: c.condition } : {}),
      response: one(c.response),
    })),
  };
}
