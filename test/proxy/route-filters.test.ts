// The pure parts of route filters, table-driven from testdata/route-filters.yaml. Filter values go
// through the IR codec first, so each case sees exactly the shape the runtime gets from a snapshot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { PathMatchInput, Route, RouteInput } from '../../src/ir/types.js';
import {
  applyHeaderModifier,
  matchedPrefix,
  redirectResponse,
  replacePrefix,
  rewriteTarget,
  type HeaderMap,
  type RequestOrigin,
} from '../../src/proxy/http/route-filters.js';

interface Cases {
  replacePrefix: { path: string; prefix: string; replacement: string; want: string }[];
  matchedPrefix: { name: string; matches: PathMatchInput[]; path: string; want: string | null }[];
  headers: { name: string; headers: HeaderMap; mod: object; want: HeaderMap }[];
  rewrite: {
    name: string;
    target: string;
    rewrite: object;
    matches: PathMatchInput[];
    want: { target: string; host?: string };
  }[];
  redirect: {
    name: string;
    request: RequestOrigin;
    redirect: object;
    matches?: PathMatchInput[];
    want: { status: number; location: string };
  }[];
}

const cases = parse(readFileSync(join(import.meta.dirname, 'testdata/route-filters.yaml'), 'utf8')) as Cases;

function irRoute(filters: RouteInput['filters'], matches: PathMatchInput[] = []): Route {
  const snap = normalizeSnapshot({ version: '1', resources: [{ route: { name: 'r', matches, filters } }] });
  const route = snap.resources[0]?.route;
  if (!route?.filters) throw new Error('the codec dropped the filters');
  return route;
}

describe('route filter functions', () => {
  it.each(cases.replacePrefix)('replaces prefix $prefix of $path with "$replacement" as $want', (c) => {
    expect(replacePrefix(c.path, c.prefix, c.replacement)).toBe(c.want);
  });

  it.each(cases.matchedPrefix)('finds the matched prefix: $name', (c) => {
    const route = irRoute({}, c.matches);
    expect(matchedPrefix(route.matches, c.path) ?? null).toBe(c.want);
  });

  it.each(cases.headers)('modifies headers: $name', (c) => {
    const mod = irRoute({ requestHeaders: c.mod }).filters?.requestHeaders;
    if (!mod) throw new Error('no modifier');
    const before = structuredClone(c.headers);
    expect(applyHeaderModifier(c.headers, mod)).toEqual(c.want);
    expect(c.headers, 'the input map is not changed').toEqual(before);
  });

  it.each(cases.rewrite)('rewrites the request: $name', (c) => {
    const route = irRoute({ rewrite: c.rewrite }, c.matches);
    expect(
      rewriteTarget(
        c.target,
        route.filters?.rewrite as NonNullable<NonNullable<Route['filters']>['rewrite']>,
        route.matches,
      ),
    ).toEqual(c.want);
  });

  it.each(cases.redirect)('answers a redirect: $name', (c) => {
    const route = irRoute({ redirect: c.redirect }, c.matches ?? []);
    const redirect = route.filters?.redirect;
    if (!redirect) throw new Error('no redirect');
    expect(redirectResponse(c.request, redirect, route.matches)).toEqual(c.want);
  });
});
