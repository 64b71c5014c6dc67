// CEL compiled once per snapshot and its values turned into what a request carries. A policy's plan
// compiles its expressions with `compileAt` when the snapshot is applied (a problem names the IR field and
// NACKs the snapshot), so a request only evaluates; `celText` and `celJson` turn a result into a header
// value or JSON without guessing. Shared by transformations, conditional direct responses and the AI field
// transformations.
import {
  compileCel,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  jsonSourceOf,
  type CelVariable,
  type CompiledCel,
} from './env.js';

export type Bad = (path: string, message: string) => void;

/** The compiled expression, or undefined after telling `bad` why it does not compile (path `at`). */
export function compileAt(
  source: string,
  allowed: readonly CelVariable[],
  at: string,
  bad: Bad,
): CompiledCel | undefined {
  try {
    return compileCel(source, allowed);
  } catch (err) {
    bad(at, (err as Error).message);
    return undefined;
  }
}

/** Why a value cannot be used, as one sentence without a subject. */
export class CelValueProblem extends Error {}

/** A result as one header value: strings as they are, numbers and booleans printed; nothing else. */
export function celText(value: unknown): string | CelValueProblem {
  if (value instanceof Error || isCelError(value)) return new CelValueProblem('did not evaluate');
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isCelUint(value)) return String(value.value);
  return new CelValueProblem('yields a list or map where a text value is needed');
}

/** A result as plain JSON data (maps become objects with string keys, 64-bit integers numbers), or why not. */
export function celJson(value: unknown): unknown {
  if (value instanceof Error || isCelError(value)) return new CelValueProblem('did not evaluate');
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number')
    return Number.isFinite(value) ? value : new CelValueProblem('yields a non-finite number');
  if (typeof value === 'bigint') return Number(value);
  if (isCelUint(value)) return Number(value.value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  // A part of a body's JSON carried over whole (`request.json.messages`): the JSON it was read from, as it is.
  const source = jsonSourceOf(value);
  if (source !== undefined) return source;
  // Indexed reads and forEach, not the library's entry generators: a carried-over body (`request.json.messages`) is walked whole.
  if (isCelList(value)) {
    const out: unknown[] = new Array(value.size);
    for (let i = 0; i < value.size; i++) {
      const j = celJson(value.get(i));
      if (j instanceof CelValueProblem) return j;
      out[i] = j;
    }
    return out;
  }
  if (isCelMap(value)) {
    const out: Record<string, unknown> = {};
    let problem: CelValueProblem | undefined;
    value.forEach((v, k) => {
      const j = problem ?? celJson(v);
      if (j instanceof CelValueProblem) problem = j;
      else out[String(isCelUint(k) ? k.value : k)] = j;
    });
    return problem ?? out;
  }
  // A plain object handed in as a binding and returned whole (`request.json`).
  if (typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype)
    return value;
  if (Array.isArray(value)) return value;
  return new CelValueProblem('yields a value that has no JSON form (a duration, timestamp or type)');
}

/** A body from a result: a string or bytes as they are, anything else as JSON. */
export function celBody(value: unknown): Buffer | CelValueProblem {
  if (typeof value === 'string') return Buffer.from(value);
  if (value instanceof Uint8Array) return Buffer.from(value);
  const j = celJson(value);
  return j instanceof CelValueProblem ? j : Buffer.from(JSON.stringify(j));
}
