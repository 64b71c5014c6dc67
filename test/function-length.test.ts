// No function in src/ is longer than 80 lines (issue 13): a long step is split into named steps, so each
// reads as one thing. Counted from the parsed source, nested functions separately; generated code is left out.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../src');
const MAX_LINES = 80;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'gen' ? [] : sources(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** `file:line name (n lines)` for every function longer than `max` lines. */
function longFunctions(file: string, text: string, max: number): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const lines = sf.getLineAndCharacterOfPosition(n.getEnd()).line - first + 1;
      const name = n.name?.getText(sf) ?? '(anonymous)';
      if (lines > max) out.push(`${path.relative(root, file)}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('src/ functions', () => {
  it('finds a long function (the check itself works)', () => {
    const body = Array.from({ length: 85 }, (_, i) => `  const a${i} = ${i};`).join('\n');
    expect(longFunctions(path.join(root, 'x.ts'), `function big(): void {\n${body}\n}\n`, MAX_LINES)).toEqual([
      'x.ts:1 big (87 lines)',
    ]);
  });

  it(`has no function over ${MAX_LINES} lines`, () => {
    const files = sources(root);
    expect(files.length).toBeGreaterThan(200);
    expect(files.flatMap((f) => longFunctions(f, readFileSync(f, 'utf8'), MAX_LINES))).toEqual([]);
  });
});
