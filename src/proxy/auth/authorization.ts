// CEL authorization rules (seed 001 "Authorization"): compiled once at load, evaluated per request.
import { ProblemError, type Problem } from '../../problem.js';
import {
  celReads,
  compileCel,
  connectionVariables,
  expressionVariables,
  holds,
  type CelBindings,
  type CelVariable,
  type CompiledCel,
} from '../policy/cel/env.js';

export type RuleAction = 'allow' | 'deny' | 'require';

/** IR `AuthorizationAction` → the rule action (unspecified is the API default, Allow). */
export const ruleActions = {
  AUTHORIZATION_ACTION_UNSPECIFIED: 'allow',
  ALLOW: 'allow',
  DENY: 'deny',
  REQUIRE: 'require',
} as const satisfies Record<string, RuleAction>;

export interface AuthorizationRule {
  expressions: string[];
  action: RuleAction;
}

export interface AuthorizationContext {
  jwt?: Record<string, unknown>;
  /** The `metadata` of the API key the caller presented (traffic.apiKeyAuthentication). */
  apiKey?: Record<string, unknown>;
  /** What the external authorization service said about the request (gRPC dynamic_metadata, HTTP responseMetadata). */
  extauthz?: Record<string, unknown>;
  request: { method: string; path: string; headers: Record<string, string> };
  mcp: { method: string; tool?: string; prompt?: string; resource?: string };
  /** The A2A call a request on an A2A route makes (src/proxy/a2a/call.ts); absent on other requests. */
  a2a?: Record<string, string>;
  /** The request is on a route to an A2A agent: only there does a rule reading `a2a` skip a request with no call. */
  a2aRoute?: boolean;
}

export interface Authorizer {
  /** Whether the request may proceed; evaluation errors count as "does not hold". */
  allows(ctx: AuthorizationContext): boolean;
  readonly ruleCount: number;
}

interface CompiledRule {
  action: RuleAction;
  expressions: CompiledCel[];
  /** The MCP names the rule reads (`mcp.tool`, `mcp.prompt`, `mcp.resource`). */
  reads: McpName[];
  /** The rule reads `a2a`: it applies to A2A calls only. */
  readsA2a: boolean;
}

type McpName = 'tool' | 'prompt' | 'resource';

/** Which of `mcp.tool`, `mcp.prompt`, `mcp.resource` an expression reads (dot or index form, from its syntax tree). */
function mcpNamesRead(src: string): McpName[] {
  const { members } = celReads(src);
  return (['tool', 'prompt', 'resource'] as const).filter((n) => members.has(`mcp.${n}`));
}

/**
 * Compiles rules over the CEL variables `vars`; throws a ProblemError naming every rule path (`{where}[2]`, or
 * `{where}[2].expressions[0]` when a rule has several) whose expression does not compile.
 */
function compileRules(
  rules: AuthorizationRule[],
  where: string,
  source: string,
  vars: readonly CelVariable[],
): CompiledRule[] {
  const problems: Problem[] = [];
  const compiled: CompiledRule[] = [];
  rules.forEach((rule, i) => {
    const exprs: CompiledCel[] = [];
    if (rule.expressions.length === 0) {
      problems.push({ source, path: `${where}[${i}]`, message: 'must have at least one expression' });
    }
    rule.expressions.forEach((src, j) => {
      try {
        exprs.push(compileCel(src, vars));
      } catch (err) {
        const path = rule.expressions.length === 1 ? `${where}[${i}]` : `${where}[${i}].expressions[${j}]`;
        problems.push({ source, path, message: `${JSON.stringify(src)} ${(err as Error).message}` });
      }
    });
    compiled.push({
      action: rule.action,
      expressions: exprs,
      reads: [...new Set(rule.expressions.flatMap(mcpNamesRead))],
      readsA2a: rule.expressions.some((e) => celReads(e).variables.has('a2a')),
    });
  });
  if (problems.length > 0) throw new ProblemError(problems);
  return compiled;
}

/**
 * The decision over compiled rules: any matching deny denies, every applying require must match, and when
 * there are allow rules one of them must match. A rule that does not `apply` neither allows nor denies.
 */
function decide(
  compiled: CompiledRule[],
  bindings: CelBindings,
  applies: (r: CompiledRule) => boolean = () => true,
): boolean {
  const matches = (r: CompiledRule): boolean => r.expressions.every((e) => holds(e, bindings));
  const of = (a: RuleAction) => compiled.filter((r) => r.action === a);
  if (of('deny').some((r) => applies(r) && matches(r))) return false;
  if (!of('require').every((r) => !applies(r) || matches(r))) return false;
  const allow = of('allow');
  return allow.length === 0 || allow.some((r) => !applies(r) || matches(r));
}

/**
 * Request rules (CEL `jwt`, `request`, `mcp`, `apiKey`, `extauthz`). Standalone `authorization.rules` (plain strings) map
 * to one `allow` rule per string.
 */
export function compileAuthorization(rules: AuthorizationRule[], where: string, source = 'config'): Authorizer {
  const compiled = compileRules(rules, where, source, ['jwt', 'request', 'mcp', 'a2a', 'apiKey', 'extauthz']);
  return {
    ruleCount: compiled.length,
    allows(ctx) {
      const bindings = {
        jwt: ctx.jwt,
        apiKey: ctx.apiKey,
        extauthz: ctx.extauthz,
        request: ctx.request as unknown as Record<string, unknown>,
        mcp: ctx.mcp as unknown as Record<string, unknown>,
        ...(ctx.a2a ? { a2a: ctx.a2a } : {}),
      };
      // A rule that reads mcp.tool says nothing about a request that names no tool (likewise prompt and
      // resource): it neither allows nor denies it, so `mcp.tool != "x"` leaves prompts/get alone and
      // `mcp.tool == "x"` does not block initialize. On a route to an A2A agent a rule that reads `a2a` applies to
      // A2A calls only (a card fetch is none); on any other route it is evaluated, and its `a2a` reads fail (an
      // Allow there never holds). Otherwise a rule matches when all its expressions hold.
      return decide(
        compiled,
        bindings,
        (r) =>
          r.reads.every((n) => typeof ctx.mcp[n] === 'string') &&
          (!r.readsA2a || ctx.a2a !== undefined || ctx.a2aRoute !== true),
      );
    },
  };
}

/**
 * GwModel `policies.authorization` (CEL `jwt`, `request`, `llmRequest`, `apiKey`): the same rules and decision
 * as a route's, over the chat request instead of MCP. Throws a ProblemError like compileAuthorization.
 */
export function compileModelAuthorization(
  rules: AuthorizationRule[],
  where: string,
  source: string,
): (bindings: CelBindings) => boolean {
  const compiled = compileRules(rules, where, source, expressionVariables.modelAuthorization);
  return (bindings) => decide(compiled, bindings);
}

/** The CEL variables of a connection (GwPolicy `frontend.networkAuthorization`), before any byte is read. */
export interface ConnectionAttributes {
  source: { address: string; port: number };
  destination: { address: string; port: number };
}

/** Connection rules (CEL `source`, `destination`); same actions and decision as request rules. */
export function compileConnectionAuthorization(
  rules: AuthorizationRule[],
  where: string,
  source: string,
): (conn: ConnectionAttributes) => boolean {
  const compiled = compileRules(rules, where, source, connectionVariables);
  return (conn) => decide(compiled, { source: conn.source, destination: conn.destination });
}

/** Standalone `mcp.policies.authorization.rules`: each string is one allow rule. */
export function compileStandaloneRules(
  rules: string[],
  where = 'mcp.policies.authorization.rules',
  source = 'config',
): Authorizer {
  return compileAuthorization(
    rules.map((e) => ({ expressions: [e], action: 'allow' as const })),
    where,
    source,
  );
}
