// Status hygiene across every golden (issue 16): each condition the translator writes has a status of True,
// False or Unknown, a CamelCase reason, a message, observedGeneration and lastTransitionTime, and a reason
// that repeats the condition's type (its positive reason: Accepted, Programmed, ResolvedRefs, …) only
// when the status is True, so a False condition never reads as the good outcome.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const dir = path.resolve(import.meta.dirname, 'testdata');

interface Cond {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  observedGeneration?: unknown;
  lastTransitionTime?: unknown;
}

function conditions(v: unknown, at: string, out: [string, Cond][]): [string, Cond][] {
  if (Array.isArray(v)) v.forEach((x, i) => conditions(x, `${at}[${i}]`, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'conditions' && Array.isArray(x)) for (const c of x) out.push([at, c as Cond]);
      else conditions(x, `${at}.${k}`, out);
    }
  }
  return out;
}

/** What is wrong with one condition, if anything. */
function problem(c: Cond): string | undefined {
  if (!['True', 'False', 'Unknown'].includes(String(c.status))) return `status ${String(c.status)}`;
  if (typeof c.reason !== 'string' || !/^[A-Z][A-Za-z]*$/.test(c.reason)) return `reason ${String(c.reason)}`;
  if (typeof c.message !== 'string' || c.message.trim() === '') return 'no message';
  if (typeof c.observedGeneration !== 'number') return 'no observedGeneration';
  if (c.lastTransitionTime === undefined) return 'no lastTransitionTime';
  if (c.reason === c.type && c.status !== 'True') return `${c.type}=${String(c.status)} with the positive reason`;
  return undefined;
}

describe('condition hygiene in every golden', () => {
  it('flags a False condition carrying its positive reason (the check itself works)', () => {
    const bad = { type: 'Programmed', status: 'False', reason: 'Programmed', message: 'm', observedGeneration: 1 };
    expect(problem({ ...bad, lastTransitionTime: 't' })).toBe('Programmed=False with the positive reason');
  });

  it('has only well-formed conditions', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.out.yaml'));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((f) => conditions(parse(readFileSync(path.join(dir, f), 'utf8')), f, []));
    expect(found.length).toBeGreaterThan(1000);
    const bad = found.flatMap(([at, c]) => {
      const p = problem(c);
      return p ? [`${at}: ${String(c.type)}: ${p}`] : [];
    });
    expect(bad).toEqual([]);
  });
});
