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

/**
 * The one candidate `word` is most likely a typo of, for "did you mean" help: the unique nearest by edit distance
 * (case-insensitive, a swap of neighbours counts once), within a third of the word's length (at least 1).
 */
export function closestName(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  const limit = Math.max(1, Math.floor(w.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  let tie = false;
  for (const c of candidates) {
    if (c === word) continue;
    const d = editDistance(w, c.toLowerCase());
    if (d < bestDistance) [best, bestDistance, tie] = [c, d, false];
    else if (d === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const up = rows[i - 1]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
