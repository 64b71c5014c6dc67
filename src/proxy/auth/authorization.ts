// CEL authorization rules (seed 001 "Authorization"): compiled once at load, evaluated per request.
import { ProblemError, type Problem } from '../../problem.js';
import { compileCel, holds, type CompiledCel } from '../policy/cel/env.js';

export type RuleAction = 'allow' | 'deny' | 'require';

export interface AuthorizationRule {
  expressions: string[];
  action: RuleAction;
}

export interface AuthorizationContext {
  jwt?: Record<string, unknown>;
  /** The `metadata` of the API key the caller presented (traffic.apiKeyAuthentication). */
  apiKey?: Record<string, unknown>;
  request: { method: string; path: string; headers: Record<string, string> };
  mcp: { method: string; tool?: string; prompt?: string; resource?: string };
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
}

type McpName = 'tool' | 'prompt' | 'resource';

/** Which of `mcp.tool`, `mcp.prompt`, `mcp.resource` an expression reads (dot or index form). */
function mcpNamesRead(src: string): McpName[] {
  return (['tool', 'prompt', 'resource'] as const).filter((n) =>
    new RegExp(`\\bmcp\\s*(\\.\\s*${n}\\b|\\[\\s*["']${n}["']\\s*\\])`).test(src),
  );
}

/**
 * Compiles rules; throws a ProblemError naming every rule path (`{where}[2]`, or
 * `{where}[2].expressions[0]` when a rule has several) whose expression does not compile.
 * Standalone `authorization.rules` (plain strings) map to one `allow` rule per string.
 */
export function compileAuthorization(rules: AuthorizationRule[], where: string, source = 'config'): Authorizer {
  const problems: Problem[] = [];
  const compiled: CompiledRule[] = [];
  rules.forEach((rule, i) => {
    const exprs: CompiledCel[] = [];
    if (rule.expressions.length === 0) {
      problems.push({ source, path: `${where}[${i}]`, message: 'must have at least one expression' });
    }
    rule.expressions.forEach((src, j) => {
      try {
        exprs.push(compileCel(src, ['jwt', 'request', 'mcp', 'apiKey']));
      } catch (err) {
        const path = rule.expressions.length === 1 ? `${where}[${i}]` : `${where}[${i}].expressions[${j}]`;
        problems.push({ source, path, message: `${JSON.stringify(src)} ${(err as Error).message}` });
      }
    });
    compiled.push({
      action: rule.action,
      expressions: exprs,
      reads: [...new Set(rule.expressions.flatMap(mcpNamesRead))],
    });
  });
  if (problems.length > 0) throw new ProblemError(problems);

  const allowRules = compiled.filter((r) => r.action === 'allow');
  const requireRules = compiled.filter((r) => r.action === 'require');
  const denyRules = compiled.filter((r) => r.action === 'deny');
  return {
    ruleCount: compiled.length,
    allows(ctx) {
      const bindings = {
        jwt: ctx.jwt,
        apiKey: ctx.apiKey,
        request: ctx.request as unknown as Record<string, unknown>,
        mcp: ctx.mcp as unknown as Record<string, unknown>,
      };
      // A rule that reads mcp.tool says nothing about a request that names no tool (likewise prompt and
      // resource): it neither allows nor denies it, so `mcp.tool != "x"` leaves prompts/get alone and
      // `mcp.tool == "x"` does not block initialize. Otherwise a rule matches when all its expressions hold.
      const applies = (r: CompiledRule): boolean => r.reads.every((n) => typeof ctx.mcp[n] === 'string');
      const matches = (r: CompiledRule): boolean => r.expressions.every((e) => holds(e, bindings));
      if (denyRules.some((r) => applies(r) && matches(r))) return false;
      if (!requireRules.every((r) => !applies(r) || matches(r))) return false;
      if (allowRules.length > 0 && !allowRules.some((r) => !applies(r) || matches(r))) return false;
      return true;
    },
  };
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
