// The error table is the one place a code gets its status; docs/proxy.md must list the same table.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/proxy/proxy-error.js';

describe('proxy error codes', () => {
  it('docs/proxy.md "Error codes" lists every code with its status, and nothing else', () => {
    const doc = readFileSync(new URL('../../docs/proxy.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Error codes'), doc.indexOf('\n## ', doc.indexOf('## Error codes') + 3));
    const listed = Object.fromEntries(
      [...section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]),
    );
    expect(listed).toEqual(errorStatus);
  });

  it('no proxy source file picks a status for its own error body', () => {
    // sendError takes a code only; a literal status next to an error body would bypass the table.
    const offenders: string[] = [];
    for (const file of sourceFiles(new URL('../../src/proxy/', import.meta.url))) {
      const text = readFileSync(file, 'utf8');
      if (/sendError\([^,]+,\s*\d{3}/.test(text) || /error: '[a-z_]+', error_description/.test(text))
        offenders.push(file.pathname);
    }
    expect(offenders).toEqual([]);
  });
});

function sourceFiles(dir: URL): URL[] {
  return readdirSyncRecursive(dir).filter(
    (u) => u.pathname.endsWith('.ts') && !u.pathname.endsWith('/http/http-error.ts'),
  );
}

function readdirSyncRecursive(dir: URL): URL[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => new URL(f, dir));
}
