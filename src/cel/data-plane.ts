// The data plane's one CEL environment: built once per process and shared by authorization rules and
// guardrail header expressions, so every expression sees the same variables and functions. Pure (no I/O):
// the translator compiles GwPolicy expressions with it too, so status names what the proxy would refuse.
// The library loads with the first expression compiled (library.ts).
import type { CelError, CelList, CelMap, CelUint, CelValue, parse } from '@bufbuild/cel';
export type { CelMap } from '@bufbuild/cel';
import { celLibrary, celLibraryIfLoaded, type CelLibrary } from './library.js';
import { memberPath, plainMember, readPath, shortcutOf } from './shortcut.js';
export { celJsonOf, jsonSourceOf } from './json-view.js';

type Expr = ReturnType<typeof parse>['expr'];

/** Root variables an expression may name; anything else is rejected when the expression compiles. */
export const celVariables = ['jwt', 'request', 'mcp', 'a2a', 'llmRequest', 'apiKey', 'extauthz'] as const;
/** The model catalog's metadata of the model called (`llm.model.*`): only expressions evaluated per model name it. */
export const llmVariable = 'llm' as const;
/** What an external processor answered (`dynamic_metadata`): only access logs, evaluated after it, name it. */
export const extProcVariable = 'extProc' as const;
/** Connection attributes (`source.address`, `destination.port`, ...): only network authorization names them. */
export const connectionVariables = ['source', 'destination'] as const;
/** `response` exists only once a request is done (access logs): expressions evaluated before cannot name it. */
export type CelVariable =
  | (typeof celVariables)[number]
  | (typeof connectionVariables)[number]
  | 'response'
  | typeof extProcVariable
  | typeof llmVariable;
/** A variable's members: a plain object (converted on each read), or a CEL map built once with `celMapOf`. */
export type CelBindings = Partial<Record<CelVariable, Record<string, unknown> | CelMap>>;

/** What each kind of policy expression may name, shared by the proxy that evaluates it and the translator that reports on it. */
export const expressionVariables = {
  /** traffic.extAuth: evaluated before the request is forwarded. */
  extAuth: ['request', 'jwt'],
  /** An MCP guardrail processor's `remote.metadata`: evaluated per JSON-RPC message. */
  guardrailMetadata: ['request', 'jwt', 'mcp'],
  /** traffic.extProc `metadataContext` and `requestAttributes`: evaluated before the request's first message. */
  extProcRequest: ['request', 'jwt'],
  /** traffic.extProc `responseAttributes`: evaluated when the backend's answer arrives (`response.code`, `response.headers`). */
  extProcResponse: ['request', 'jwt', 'response'],
  /** GwModel `policies.authorization`: evaluated once the chat request is read, before a model is called. */
  modelAuthorization: ['jwt', 'request', 'llmRequest', 'apiKey', 'llm'],
  /** traffic/backend `transformation.request`: evaluated after authentication, before the first try. */
  transformationRequest: ['request', 'jwt', 'apiKey'],
  /** traffic/backend `transformation.response`: evaluated when the backend's answer arrives. */
  transformationResponse: ['request', 'jwt', 'apiKey', 'response'],
  /** traffic.rateLimit.global descriptor entries: evaluated after authentication and authorization, before dispatch. */
  globalRateLimit: ['request', 'jwt', 'apiKey', 'extauthz'],
  /** The same on LLM routes, where `llmRequest` (the request body) and `llm` (`llm.model.*`) exist once the body is read. */
  globalRateLimitLlm: ['request', 'jwt', 'apiKey', 'extauthz', 'llmRequest', 'llm'],
  /** traffic.directResponse `condition`, `bodyExpression` and header values: answered before authentication. */
  directResponse: ['request'],
  /** AI `transformations` / `finalTransformations` (and GwModel's): evaluated per provider on the request body about to be sent. */
  aiTransformation: ['llmRequest', 'request', 'jwt', 'apiKey', 'llm'],
  /** `health.unhealthyCondition`: evaluated on each answer of a backend, provider or MCP target that sets it. */
  unhealthyCondition: ['response'],
  /** frontend.accessLog `filter` and `attributes.add`: evaluated once the response is done. */
  accessLog: ['request', 'response', 'jwt', 'mcp', 'a2a', 'llmRequest', 'extauthz', 'extProc'],
} as const satisfies Record<string, readonly CelVariable[]>;

let env: ReturnType<CelLibrary['celEnv']> | undefined;

/** The library and the one environment, built on first use. */
function dataPlaneCel(): { cel: CelLibrary; env: ReturnType<CelLibrary['celEnv']> } {
  const { cel, ext } = celLibrary();
  if (!env) {
    const dynMap = cel.mapType(cel.CelScalar.STRING, cel.CelScalar.DYN);
    env = cel.celEnv({
      variables: {
        jwt: dynMap,
        request: dynMap,
        mcp: dynMap,
        a2a: dynMap,
        llmRequest: dynMap,
        apiKey: dynMap,
        extauthz: dynMap,
        llm: dynMap,
        source: dynMap,
        destination: dynMap,
        response: dynMap,
        extProc: dynMap,
      },
      funcs: ext.strings,
    });
  }
  return { cel, env };
}

// What evaluate() returned, told apart; false before any expression was compiled (no CEL value exists then).
export const isCelError = (v: unknown): v is CelError => celLibraryIfLoaded()?.isCelError(v) ?? false;
export const isCelList = (v: unknown): v is CelList => celLibraryIfLoaded()?.isCelList(v) ?? false;
export const isCelMap = (v: unknown): v is CelMap => celLibraryIfLoaded()?.isCelMap(v) ?? false;
export const isCelUint = (v: unknown): v is CelUint => celLibraryIfLoaded()?.isCelUint(v) ?? false;

/**
 * Members as a CEL map built once: @bufbuild/cel turns a plain object into a new map on every read of it, so a
 * binding several expressions read (a transformation step's `request`) is handed over already converted.
 */
export function celMapOf(members: ReadonlyMap<string, unknown>): CelMap {
  return celLibrary().cel.celMap(members as ReadonlyMap<string, never>);
}

export interface CompiledCel {
  readonly source: string;
  /** The value, or an Error when evaluation failed (missing field, wrong type, ...). Never throws. */
  evaluate(bindings: CelBindings): CelValue | Error;
}

/**
 * Parses and plans an expression. Throws an Error whose message reads as one sentence when the
 * expression does not parse or names a variable outside `allowed`.
 */
export function compileCel(source: string, allowed: readonly CelVariable[] = celVariables): CompiledCel {
  const { cel, env } = dataPlaneCel();
  let parsed;
  try {
    parsed = cel.parse(source);
  } catch (err) {
    throw new Error(`is not a valid CEL expression: ${(err as Error).message.replace(/^<input>:/, 'at ')}`);
  }
  const unknown = unknownIdentifiers(parsed.expr, new Set(allowed));
  if (unknown.length > 0) {
    throw new Error(
      `names unknown variable ${unknown.map((n) => `"${n}"`).join(', ')}; known variables are ${allowed.join(', ')}`,
    );
  }
  const program = cel.plan(env, parsed);
  // The variables the expression names: only those are bound per evaluation (the program resolves no other).
  const named = unknownIdentifiers(parsed.expr, new Set()) as CelVariable[];
  const run = (bindings: CelBindings): CelValue | Error => {
    // Unbound variables become empty maps so `jwt.sub` without a token is an evaluation error, not a crash.
    const ctx: Partial<Record<CelVariable, unknown>> = {};
    for (const name of named) ctx[name] = bindings[name] ?? {};
    try {
      return program(ctx as never);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  };
  if (named.length === 0) {
    const constant = run({});
    return { source, evaluate: () => constant };
  }
  const path = memberPath(parsed.expr);
  if (path) {
    const root = path.variable as CelVariable;
    return {
      source,
      evaluate(bindings) {
        const v = readPath(bindings[root], path.keys, celMember);
        return v === undefined ? run(bindings) : (v as CelValue);
      },
    };
  }
  const shortcut = shortcutOf(parsed.expr);
  if (!shortcut) return { source, evaluate: run };
  return {
    source,
    evaluate(bindings) {
      const v = shortcut(bindings, celMember);
      return v === undefined ? run(bindings) : (v as CelValue);
    },
  };
}

/** A member of a CEL map or a bound plain object, as a CEL select or index with a constant key reads it. */
function celMember(container: unknown, key: string): unknown {
  if (!isCelMap(container)) return plainMember(container, key);
  try {
    return container.get(key);
  } catch {
    return undefined; // a value the library cannot convert: the program gives its error
  }
}

/** Why `source` would not compile on the proxy with these variables (one sentence, no subject), or undefined when it would. */
export function celCompileProblem(source: string, allowed: readonly CelVariable[] = celVariables): string | undefined {
  try {
    compileCel(source, allowed);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * The documented members of the variables whose shape is fixed (docs/auth.md); `jwt`, `apiKey` and
 * `llmRequest` carry what the token, key or request holds, so any member may exist.
 */
export const variableMembers: Partial<Record<CelVariable, readonly string[]>> = {
  request: ['method', 'path', 'host', 'headers'],
  mcp: ['method', 'tool', 'prompt', 'resource'],
  /** An A2A call (src/proxy/a2a/call.ts): `method` under its A2A 1.0 name, `rpcMethod` as sent. */
  a2a: ['method', 'rpcMethod', 'taskId', 'contextId', 'role'],
  /** `llm.model`: the model catalog's entry of the model called (docs/llm-providers.md "Model catalog"). */
  llm: ['model'],
  source: ['address', 'port'],
  destination: ['address', 'port'],
};

// A pure function of the text, and rules repeat across policies: every status refresh of every GwPolicy
// asks again, and parsing was 11 % of a first full translation at 10k objects. Bounded by entries.
const memberWarnings = new Map<string, readonly string[]>();
const MEMBER_WARNINGS_HELD = 4096;

/**
 * Members an expression reads that its variable never has (`mcp.tools`, `request.header`): the rule compiles
 * (the variables are dynamic maps) but that read always fails, so a Deny rule built on it never denies. One
 * sentence per member; empty when there is none or the expression does not parse.
 */
export function celMemberWarnings(source: string): readonly string[] {
  let held = memberWarnings.get(source);
  if (held === undefined) {
    if (memberWarnings.size >= MEMBER_WARNINGS_HELD) memberWarnings.clear();
    memberWarnings.set(source, (held = Object.freeze(parsedMemberWarnings(source))));
  }
  return held;
}

function parsedMemberWarnings(source: string): string[] {
  let parsed;
  try {
    parsed = dataPlaneCel().cel.parse(source);
  } catch {
    return [];
  }
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v === null || typeof v !== 'object') return;
    const e = v as { exprKind?: { case?: string; value?: { operand?: Expr; field?: string } } };
    const k = e.exprKind;
    const operand = k?.case === 'selectExpr' ? k.value?.operand?.exprKind : undefined;
    if (operand?.case === 'identExpr') {
      const variable = operand.value.name as CelVariable;
      const members = variableMembers[variable];
      const field = k?.value?.field ?? '';
      if (members && !members.includes(field))
        out.add(
          `reads ${variable}.${field}, which ${variable} never has (it has ${members.join(', ')}): that read always fails, so the rule never matches through it`,
        );
    }
    for (const x of Object.values(v)) walk(x);
  };
  walk(parsed.expr);
  return [...out];
}

/** A whole variable or map (`llm.model`, `request.headers`) as a value that must be text: it never is. */
const wholeMap = /^\s*(request|jwt|apiKey|extauthz|llmRequest|llm|request\.headers|llm\.model)\s*$/;

/**
 * Why an expression that must yield text (a rate-limit descriptor entry) never can, or undefined. Shared by the
 * translator's status and the proxy, so the proxy refuses what the status calls invalid instead of serving the
 * route with that descriptor always left out.
 */
export function celWholeMapProblem(expression: string): string | undefined {
  return wholeMap.test(expression)
    ? 'yields a map, never a text value, so its descriptor would never be sent; name a member (e.g. llm.model.name, llmRequest.model)'
    : undefined;
}

/**
 * What an expression reads, from its syntax tree (never its text, so a string literal such as `"a2a-admins"`
 * or `"/mcp.tool"` reads nothing): `variables` it names, and `members` read as `<variable>.<member>` or
 * `<variable>['<member>']`. Empty when the expression does not parse (it is refused elsewhere).
 */
export function celReads(source: string): { variables: Set<string>; members: Set<string> } {
  const variables = new Set<string>();
  const members = new Set<string>();
  let parsed;
  try {
    parsed = dataPlaneCel().cel.parse(source);
  } catch {
    return { variables, members };
  }
  type Node = { exprKind?: { case?: string; value?: Record<string, unknown> } };
  const identOf = (e: unknown): string | undefined => {
    const k = (e as Node | undefined)?.exprKind;
    return k?.case === 'identExpr' ? (k.value?.name as string) : undefined;
  };
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v === null || typeof v !== 'object') return;
    const k = (v as Node).exprKind;
    const name = identOf(v);
    if (name) variables.add(name);
    if (k?.case === 'selectExpr') {
      const root = identOf(k.value?.operand);
      if (root) members.add(`${root}.${String(k.value?.field)}`);
    }
    if (k?.case === 'callExpr' && k.value?.function === '_[_]') {
      const [target, key] = k.value.args as unknown[];
      const root = identOf(target);
      const c = (key as Node | undefined)?.exprKind;
      const constant =
        c?.case === 'constExpr' ? (c.value?.constantKind as { case?: string; value?: unknown }) : undefined;
      if (root && constant?.case === 'stringValue') members.add(`${root}.${String(constant.value)}`);
    }
    for (const x of Object.values(v)) walk(x);
  };
  walk(parsed.expr);
  return { variables, members };
}

/** Whether an expression's text reads `<variable>.<member>` (or `<variable>['<member>']`): what a step must hold for it. */
export function celReadsMember(source: string, variable: string, member: string): boolean {
  return new RegExp(`\\b${variable}\\s*\\.\\s*${member}\\b|\\[\\s*['"]${member}['"]\\s*\\]`).test(source);
}

/** True only when the expression evaluated to boolean true; errors and non-booleans do not hold. */
export function holds(compiled: CompiledCel, bindings: CelBindings): boolean {
  const v = compiled.evaluate(bindings);
  return v === true;
}

function unknownIdentifiers(root: Expr | undefined, allowed: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  const walk = (e: Expr | undefined, bound: ReadonlySet<string>): void => {
    if (!e) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        if (!allowed.has(k.value.name) && !bound.has(k.value.name)) found.add(k.value.name);
        return;
      case 'selectExpr':
        walk(k.value.operand, bound);
        return;
      case 'callExpr':
        walk(k.value.target, bound);
        for (const a of k.value.args) walk(a, bound);
        return;
      case 'listExpr':
        for (const a of k.value.elements) walk(a, bound);
        return;
      case 'structExpr':
        for (const en of k.value.entries) {
          if (en.keyKind.case === 'mapKey') walk(en.keyKind.value, bound);
          walk(en.value, bound);
        }
        return;
      case 'comprehensionExpr': {
        const c = k.value;
        walk(c.iterRange, bound);
        walk(c.accuInit, bound);
        const inner = new Set(bound);
        for (const v of [c.iterVar, c.iterVar2, c.accuVar]) if (v) inner.add(v);
        walk(c.loopCondition, inner);
        walk(c.loopStep, inner);
        walk(c.result, inner);
        return;
      }
      default:
        return;
    }
  };
  walk(root, new Set());
  return [...found].sort();
}

/** A CEL value as JSON data (maps as objects, lists as arrays, bytes as base64); undefined for types and messages. */
export function celToJson(v: CelValue | unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (isCelUint(v)) return Number.isSafeInteger(Number(v.value)) ? Number(v.value) : v.value.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (isCelList(v)) return [...v].map(celToJson);
  if (isCelMap(v)) {
    const o: Record<string, unknown> = {};
    for (const [k, val] of v) o[String(isCelUint(k) ? k.value : k)] = celToJson(val);
    return o;
  }
  // Bound values can come back as they went in (plain objects and arrays from the call context).
  if (Array.isArray(v)) return v.map(celToJson);
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, val]) => [k, celToJson(val)]));
  }
  return undefined; // types and messages have no JSON form here
}
