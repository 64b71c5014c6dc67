// `location.expression` of jwtAuthentication and apiKeyAuthentication: a CEL expression over `request` whose
// string value is the credential. Compiled once per snapshot (the IR location object is the snapshot's; the
// route's authenticator compiles it when the route is compiled); an expression that does not compile leaves
// the route refusing every request (503) rather than reading no credential. Behaviour: docs/auth.md
// "Credential locations".
import type { IncomingMessage } from 'node:http';
import { compileCel, type CompiledCel } from '../policy/cel/env.js';
import { flatHeaders } from '../mcp/request.js';

const compiled = new WeakMap<object, CompiledCel | string>();

/** Compiles `expression` of location `loc` once; a string says why it does not compile. */
export function compiledExpression(loc: object, expression: string): CompiledCel | string {
  let c = compiled.get(loc);
  if (c === undefined) {
    try {
      c = compileCel(expression, ['request']);
    } catch (err) {
      c = `location.expression does not compile: ${(err as Error).message}`;
    }
    compiled.set(loc, c);
  }
  return c;
}

/** The credential the expression yields for `req`; undefined for anything but a non-empty string. */
export function credentialByExpression(req: IncomingMessage, loc: object, expression: string): string | undefined {
  const c = compiledExpression(loc, expression);
  if (typeof c === 'string') return undefined;
  const request = {
    method: req.method ?? 'GET',
    path: (req.url ?? '/').split('?')[0] ?? '/',
    headers: flatHeaders(req),
  };
  const v = c.evaluate({ request });
  return typeof v === 'string' && v !== '' ? v : undefined;
}
