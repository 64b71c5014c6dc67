// Which phase a processor runs for a JSON-RPC method: the most specific matching pattern wins.
// Order: an exact method; then the wildcard pattern with the longest literal part (`resources/*` before
// `*/list` for `resources/templates/list`), a prefix pattern before a suffix pattern of equal length;
// then `*`. A method no pattern matches bypasses the processor. Messages other than client requests
// (a target's requests to the client, client notifications) are guarded since contract v1 grew phases for
// them; so that tables written before do not start sending them, only exact and prefix patterns select them.
import type { McpGuardrailPhase } from '../../../ir/types.js';

export type Phase = 'off' | 'request' | 'response' | 'full';

const PHASES: Record<McpGuardrailPhase, Phase> = {
  GUARDRAIL_OFF: 'off',
  GUARDRAIL_REQUEST: 'request',
  GUARDRAIL_RESPONSE: 'response',
  GUARDRAIL_FULL: 'full',
};

interface Pattern {
  kind: 'exact' | 'prefix' | 'suffix' | 'any';
  literal: string;
  phase: Phase;
}

/** `client`: a client's request; `other`: a target's request to the client or a client notification. */
export type MessageKind = 'client' | 'other';

export interface MethodTable {
  /** The phase for `method`, or undefined when no pattern matches (the processor is bypassed). */
  phaseOf(method: string, kind?: MessageKind): Phase | undefined;
}

/** Throws an Error whose message reads as one sentence when a pattern has a wildcard anywhere but at one end. */
export function compileMethodTable(methods: Record<string, McpGuardrailPhase>): MethodTable {
  const exact = new Map<string, Phase>();
  const wild: Pattern[] = [];
  for (const [pattern, phase] of Object.entries(methods)) {
    const p = PHASES[phase] ?? 'off';
    const stars = pattern.split('*').length - 1;
    if (stars === 0) exact.set(pattern, p);
    else if (pattern === '*') wild.push({ kind: 'any', literal: '', phase: p });
    else if (stars === 1 && pattern.endsWith('*'))
      wild.push({ kind: 'prefix', literal: pattern.slice(0, -1), phase: p });
    else if (stars === 1 && pattern.startsWith('*')) wild.push({ kind: 'suffix', literal: pattern.slice(1), phase: p });
    else
      throw new Error(`method pattern ${JSON.stringify(pattern)} must be an exact method, "prefix*", "*suffix" or "*"`);
  }
  wild.sort((a, b) => b.literal.length - a.literal.length || rank(a) - rank(b));
  const cache = new Map<string, Phase | undefined>();
  return {
    phaseOf(method, kind = 'client') {
      const key = `${kind} ${method}`;
      if (cache.has(key)) return cache.get(key);
      const found =
        exact.get(method) ?? wild.find((w) => (kind === 'client' || w.kind === 'prefix') && matches(w, method))?.phase;
      if (cache.size < 1024) cache.set(key, found); // methods are client-chosen: bound the cache
      return found;
    },
  };
}

function rank(p: Pattern): number {
  return p.kind === 'prefix' ? 0 : p.kind === 'suffix' ? 1 : 2;
}

function matches(p: Pattern, method: string): boolean {
  if (p.kind === 'any') return true;
  return p.kind === 'prefix' ? method.startsWith(p.literal) : method.endsWith(p.literal);
}

export function runsIn(phase: Phase | undefined, step: 'request' | 'response'): boolean {
  return phase === 'full' || phase === step;
}
