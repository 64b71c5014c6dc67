// GwPolicy `transformation` (traffic, and backend on a route → backend edge): CEL header and body edits of
// a forwarded request and of its answer. Each step compiles once per snapshot; per request the expressions
// evaluate to a plain HeaderModifier applied by the same code as `headerModifiers` (route-filters.ts), then
// the body. Every expression is evaluated before anything is changed: one that fails fails the whole step,
// so a message is never sent half-edited. Behaviour: docs/proxy.md "Transformations".
import type { Transformation as IrTransformation, TransformationStep as IrStep } from '../../ir/types.js';
import { applyHeaderModifier, type HeaderMap } from '../http/route-filters.js';
import { withoutHopByHop } from '../http/forward-headers.js';
import {
  celMapOf,
  celReadsMember,
  expressionVariables,
  type CelBindings,
  type CelMap,
  type CompiledCel,
} from './cel/env.js';
import { celBody, celText, compileAt, type Bad } from './cel/snapshot-cel.js';

/** Pseudo-headers a request step may set: the request line, not a header. */
const PSEUDO = new Set([':path', ':method', ':authority']);
const TOKEN = /^:?[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const BREAKS = /[\r\n\0]/;

export interface TransformStep {
  readonly remove: readonly string[];
  readonly set: readonly (readonly [string, CompiledCel])[];
  readonly add: readonly (readonly [string, CompiledCel])[];
  readonly body?: CompiledCel;
  /** Some expression reads `<side>.body` or `<side>.json`, or the step replaces the body: the body is held whole. */
  readonly readsBody: boolean;
  /** Some expression reads `<side>.json`: a JSON body is parsed once for it. */
  readonly readsJson: boolean;
}

export interface TransformPlan {
  request?: TransformStep;
  response?: TransformStep;
}

/** The plan of one IR transformation; problems are reported under `at` (`traffic.transformation`). */
export function compileTransformation(t: IrTransformation, at: string, bad: Bad): TransformPlan | undefined {
  const plan: TransformPlan = {};
  const request = t.request && compileStep(t.request, 'request', `${at}.request`, bad);
  const response = t.response && compileStep(t.response, 'response', `${at}.response`, bad);
  if (request) plan.request = request;
  if (response) plan.response = response;
  return request || response ? plan : undefined;
}

function compileStep(s: IrStep, side: 'request' | 'response', at: string, bad: Bad): TransformStep | undefined {
  const allowed =
    side === 'request' ? expressionVariables.transformationRequest : expressionVariables.transformationResponse;
  const pairs = (list: IrStep['set'], field: 'set' | 'add'): [string, CompiledCel][] =>
    (list ?? []).flatMap((h, i): [string, CompiledCel][] => {
      const name = h.name.toLowerCase();
      const pseudoOk = field === 'set' && side === 'request' && PSEUDO.has(name);
      if (!TOKEN.test(name) || (name.startsWith(':') && !pseudoOk)) {
        bad(
          `${at}.${field}[${i}].name`,
          `must be a header name${side === 'request' ? ' or :path, :method, :authority (set only)' : ''}`,
        );
        return [];
      }
      const c = compileAt(h.expression, allowed, `${at}.${field}[${i}].expression`, bad);
      return c ? [[name, c]] : [];
    });
  const set = pairs(s.set, 'set');
  const add = pairs(s.add, 'add');
  const body = s.body !== undefined && s.body !== null ? compileAt(s.body, allowed, `${at}.body`, bad) : undefined;
  const sources = [...set, ...add].map(([, c]) => c.source).concat(body ? [body.source] : []);
  const reads = (member: string): boolean => sources.some((src) => celReadsMember(src, side, member));
  const readsJson = reads('json');
  return {
    remove: (s.remove ?? []).map((n) => n.toLowerCase()),
    set,
    add,
    ...(body ? { body } : {}),
    readsBody: body !== undefined || readsJson || reads('body'),
    readsJson,
  };
}

/** A message as a step sees and changes it. `body` is null when it was not read (it then streams on untouched). */
export interface Message {
  headers: HeaderMap;
  body: Buffer | null;
  /** The request line (request steps only). */
  method?: string;
  path?: string;
}

/** An expression that did not give a usable value: the field it came from, never the value. */
export class TransformFailure extends Error {}

/**
 * The CEL view of a message: `method`, `path`, `host`, `headers` (one value each), `body`, `json` when read. Built
 * as CEL maps once per message, so the step's expressions do not each convert it again (docs/performance.md).
 */
export function messageView(m: Message, step: TransformStep, extra: Record<string, unknown> = {}): CelMap {
  const headers = new Map<string, string>();
  for (const k in m.headers) {
    const v = m.headers[k];
    if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  const view = new Map<string, unknown>(Object.entries(extra));
  view.set('headers', celMapOf(headers));
  if (m.method !== undefined) view.set('method', m.method);
  if (m.path !== undefined) view.set('path', m.path.split('?')[0]);
  const host = headers.get('host');
  if (host !== undefined) view.set('host', host);
  // One decoding of the body for both `body` and `json` (a step reading `json` holds the body: readsBody).
  const text = m.body && step.readsBody ? m.body.toString('utf8') : undefined;
  if (text !== undefined) view.set('body', text);
  if (text !== undefined && step.readsJson) view.set('json', parsedJson(text));
  return celMapOf(view);
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return {};
  }
}

/** A step's expressions evaluated: the header values and the new body (when the step sets one). */
export interface StepValues {
  set: { name: string; value: string }[];
  add: { name: string; value: string }[];
  body?: Buffer;
}

/** Every expression of the step evaluated, nothing changed yet; a TransformFailure names the field that failed. */
export function evaluateStep(step: TransformStep, bindings: CelBindings, at: string): StepValues | TransformFailure {
  const set = headerValues(step.set, bindings, `${at}.set`);
  if (set instanceof TransformFailure) return set;
  const add = headerValues(step.add, bindings, `${at}.add`);
  if (add instanceof TransformFailure) return add;
  if (!step.body) return { set, add };
  const b = celBody(step.body.evaluate(bindings));
  if (b instanceof Error) return new TransformFailure(`${at}.body ${b.message}`);
  return { set, add, body: b };
}

function headerValues(
  list: TransformStep['set'],
  bindings: CelBindings,
  at: string,
): { name: string; value: string }[] | TransformFailure {
  const out: { name: string; value: string }[] = [];
  for (let i = 0; i < list.length; i++) {
    const [name, c] = list[i]!;
    const v = celText(c.evaluate(bindings));
    if (v instanceof Error) return new TransformFailure(`${at}[${i}] (${name}) ${v.message}`);
    if (BREAKS.test(v)) return new TransformFailure(`${at}[${i}] (${name}) yields a line break`);
    out.push({ name, value: v });
  }
  return out;
}

/** The message with evaluated values applied: remove, set, add (the header modifier's order), then the body. */
export function applyValues(step: TransformStep, m: Message, v: StepValues): Message {
  const body = v.body ?? m.body;
  const out: Message = { ...m, body };
  const plain = v.set.filter((h) => {
    if (!h.name.startsWith(':')) return true;
    if (h.name === ':path') out.path = h.value.startsWith('/') ? h.value : `/${h.value}`;
    else if (h.name === ':method') out.method = h.value.toUpperCase();
    else out.headers = { ...out.headers, host: h.value };
    return false;
  });
  out.headers = withoutHopByHop(applyHeaderModifier(out.headers, { remove: [...step.remove], set: plain, add: v.add }));
  if (v.body) {
    delete out.headers['transfer-encoding'];
    out.headers['content-length'] = String(v.body.length);
  }
  return out;
}

/** The message after the step: every expression evaluated first, then applied (never half edited). */
export function applyStep(
  step: TransformStep,
  m: Message,
  bindings: CelBindings,
  at: string,
): Message | TransformFailure {
  const v = evaluateStep(step, bindings, at);
  return v instanceof TransformFailure ? v : applyValues(step, m, v);
}
