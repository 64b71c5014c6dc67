// A problem found in user input: where it came from, which object, which field, and what is wrong.
// Every validator and loader reports these, so every error reads the same way.

export interface Problem {
  /** File name, `-` for stdin, or `cluster` for objects read from the API server. */
  source: string;
  /** `Kind namespace/name` (or `Kind name` when cluster-scoped); absent for a standalone config file. */
  object?: string;
  /** Dotted field path with list indexes: `spec.targets[3].static.port`. Empty for the whole object. */
  path: string;
  /** One sentence: `must be between 1 and 65535, got 0`. */
  message: string;
}

export function formatProblem(p: Problem): string {
  const parts = [p.source];
  if (p.object) parts.push(p.object);
  if (p.path) parts.push(p.path);
  parts.push(p.message);
  return parts.join(': ');
}

/** Joins a JSON-pointer-ish list of segments into `a.b[3].c`. */
export function fieldPath(segments: ReadonlyArray<string | number>): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

export class ProblemError extends Error {
  constructor(readonly problems: Problem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ProblemError';
  }
}
