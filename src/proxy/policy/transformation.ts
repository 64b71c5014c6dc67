// GwPolicy `transformation` (traffic, and backend on a route → backend edge): CEL header and body edits of
// a forwarded request and of its answer. Each step compiles once per snapshot; per request the expressions
// evaluate to a plain HeaderModifier applied by the same code as `headerModifiers` (route-filters.ts), then
// the body. Every expression is evaluated before anything is changed: one that fails fails the whole step,
// so a message is never sent half-edited. Behaviour: docs/proxy.md "Transformations".
import type { Transformation as IrTransformation, TransformationStep as IrStep } from '../../ir/types.js';
import { applyHeaderModifier, setAndAddHeaders, type HeaderMap } from '../http/route-filters.js';
import { isHopByHop, withoutHopByHop } from '../http/forward-headers.js';
import {
  celJsonOf,
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
  /** Header names removed (lower case). */
  readonly removed: ReadonlySet<string>;
  /** No pseudo-header is set and no name set or added is hop-by-hop: the header edits take one copy (applyValues). */
  readonly onePass: boolean;
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
  const remove = (s.remove ?? []).map((n) => n.toLowerCase());
  return {
    remove,
    removed: new Set(remove),
    onePass: [...set, ...add].every(([name]) => !name.startsWith(':') && !isHopByHop(name)),
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
 * The CEL view of a message: `method`, `path`, `host`, `headers` (one value each), `body`, `json` when read, and
 * `extra`. Its members are read straight from the message when an expression reads them (the body decoded and
 * parsed at most once, on the first read, so a step whose expressions do not reach `json` never parses it); it
 * lives as long as the message's step, nothing is kept across requests (docs/performance.md).
 */
export function messageView(m: Message, step: TransformStep, extra: Record<string, unknown> = {}): CelMap {
  return celMapOf(new MessageMembers(m, step, extra));
}

/** The members of a message's view, in the order a whole-view read lists them. */
class MessageMembers implements ReadonlyMap<string, unknown> {
  private readonly names: string[];
  private headersView: CelMap | undefined;
  private text: string | undefined;
  private json: unknown;

  constructor(
    private readonly m: Message,
    private readonly step: TransformStep,
    private readonly extra: Record<string, unknown>,
  ) {
    this.names = Object.keys(extra).filter((k) => !MESSAGE_MEMBERS.has(k));
    this.names.push('headers');
    if (m.method !== undefined) this.names.push('method');
    if (m.path !== undefined) this.names.push('path');
    if (headerText(m.headers, 'host') !== undefined) this.names.push('host');
    if (m.body && step.readsBody) this.names.push('body');
    if (m.body && step.readsBody && step.readsJson) this.names.push('json');
  }

  get(key: unknown): unknown {
    switch (key) {
      case 'headers':
        return (this.headersView ??= celMapOf(new HeaderMembers(this.m.headers)));
      case 'method':
        return this.m.method;
      case 'path':
        return this.m.path?.split('?')[0];
      case 'host':
        return headerText(this.m.headers, 'host');
      case 'body':
        return this.m.body && this.step.readsBody ? (this.text ??= this.m.body.toString('utf8')) : undefined;
      case 'json':
        if (!this.m.body || !this.step.readsBody || !this.step.readsJson) return undefined;
        return (this.json ??= celJsonOf((this.text ??= this.m.body.toString('utf8'))));
      default:
        return typeof key === 'string' && Object.hasOwn(this.extra, key) ? this.extra[key] : undefined;
    }
  }
  has(key: unknown): boolean {
    return this.get(key) !== undefined;
  }
  get size(): number {
    return this.names.length;
  }
  keys(): MapIterator<string> {
    return this.names.values();
  }
  values(): MapIterator<unknown> {
    return this.names.map((k) => this.get(k)).values();
  }
  entries(): MapIterator<[string, unknown]> {
    return this.names.map((k): [string, unknown] => [k, this.get(k)]).values();
  }
  forEach(each: (value: unknown, key: string, map: ReadonlyMap<string, unknown>) => void, self?: unknown): void {
    for (const k of this.names) each.call(self, this.get(k), k, this);
  }
  [Symbol.iterator](): MapIterator<[string, unknown]> {
    return this.entries();
  }
}

/** The members a message's view fills itself; `extra` cannot shadow them. */
const MESSAGE_MEMBERS = new Set(['headers', 'method', 'path', 'host', 'body', 'json']);

/** One header as one value (several joined with `, `), or undefined when absent. */
function headerText(headers: HeaderMap, name: string): string | undefined {
  if (!Object.hasOwn(headers, name)) return undefined;
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** A message's headers as `request.headers` reads them: each read straight from the message. */
class HeaderMembers implements ReadonlyMap<string, string> {
  constructor(private readonly headers: HeaderMap) {}
  get(key: unknown): string | undefined {
    return typeof key === 'string' ? headerText(this.headers, key) : undefined;
  }
  has(key: unknown): boolean {
    return this.get(key) !== undefined;
  }
  private names(): string[] {
    return Object.keys(this.headers).filter((k) => this.headers[k] !== undefined);
  }
  get size(): number {
    return this.names().length;
  }
  keys(): MapIterator<string> {
    return this.names().values();
  }
  values(): MapIterator<string> {
    return this.names()
      .map((k) => this.get(k)!)
      .values();
  }
  entries(): MapIterator<[string, string]> {
    return this.names()
      .map((k): [string, string] => [k, this.get(k)!])
      .values();
  }
  forEach(each: (value: string, key: string, map: ReadonlyMap<string, string>) => void, self?: unknown): void {
    for (const k of this.names()) each.call(self, this.get(k)!, k, this);
  }
  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
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
  const fast = step.onePass && m.headers.connection === undefined ? applyInOnePass(step, m, v) : undefined;
  if (fast) return fast;
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

/**
 * `applyValues` with one copy of the headers, when that gives the same map: no pseudo-header set, no name set or
 * added that is hop-by-hop, no Connection header (so the hop-by-hop headers are the same before and after), and
 * every name in lower case; undefined when a name is not.
 */
function applyInOnePass(step: TransformStep, m: Message, v: StepValues): Message | undefined {
  const headers: HeaderMap = {};
  for (const name in m.headers) {
    const value = m.headers[name];
    if (name.toLowerCase() !== name) return undefined; // the modifier and the filter would each see another name
    if (value === undefined || step.removed.has(name)) continue;
    if (isHopByHop(name) || name.startsWith(':')) continue;
    headers[name] = value;
  }
  setAndAddHeaders(headers, v);
  const out: Message = { headers, body: v.body ?? m.body };
  if (m.method !== undefined) out.method = m.method;
  if (m.path !== undefined) out.path = m.path;
  if (v.body) {
    delete headers['transfer-encoding'];
    headers['content-length'] = String(v.body.length);
  }
  return out;
}
