// Table-driven checks of Gateway API matching and precedence (cases in route-match-cases.yaml). Routes
// go through the proto codec first so the matcher sees exactly what the xDS stream delivers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { PathMatchInput, Route, RouteMatchInput } from '../../src/ir/types.js';
import { ProblemError } from '../../src/problem.js';
import { compileRouteMatcher, selectListener, splitTarget } from '../../src/proxy/http/route-match.js';

interface RouteRow {
  name: string;
  matches?: RouteMatchInput[];
  legacy?: PathMatchInput[];
  hostnames?: string[];
  created?: string;
  key?: string;
  rule?: number;
}
interface RequestRow {
  host?: string;
  method?: string;
  path: string;
  query?: string;
  headers?: Record<string, string | string[]>;
  expect: string | number | null;
}
interface RouteCase {
  name: string;
  listenerHostnames?: string[];
  routes: RouteRow[];
  requests: RequestRow[];
}
interface ListenerCase {
  name: string;
  listeners: string[][];
  requests: RequestRow[];
}

const table = parse(readFileSync(join(import.meta.dirname, 'route-match-cases.yaml'), 'utf8')) as {
  routes: RouteCase[];
  listeners: ListenerCase[];
};

function routesOf(rows: RouteRow[]): { route: Route }[] {
  const snapshot = normalizeSnapshot({
    version: '',
    resources: rows.map((r) => ({
      route: {
        name: r.name,
        listeners: ['l'],
        hostnames: r.hostnames ?? [],
        routeMatches: r.matches ?? [],
        matches: r.legacy ?? [],
        order: { created: r.created ?? '', key: r.key ?? `default/${r.name}`, rule: r.rule ?? 0 },
      },
    })),
  });
  return snapshot.resources.map((x) => ({ route: x.route as Route }));
}

function request(r: RequestRow) {
  return {
    host: r.host ?? 'gw.test',
    method: r.method ?? 'POST',
    path: r.path,
    query: r.query ?? '',
    headers: r.headers ?? {},
  };
}

const label = (r: RequestRow) =>
  `${r.method ?? 'POST'} ${r.host ?? 'gw.test'}${r.path}${r.query ? `?${r.query}` : ''}${r.headers ? ` ${JSON.stringify(r.headers)}` : ''}`;

describe('route matching precedence', () => {
  for (const c of table.routes) {
    it(c.name, () => {
      const match = compileRouteMatcher(routesOf(c.routes), c.listenerHostnames ?? []);
      for (const r of c.requests) expect(match(request(r))?.route.name ?? null, label(r)).toBe(r.expect);
    });
  }
});

describe('listener selection by Host', () => {
  for (const c of table.listeners) {
    it(c.name, () => {
      const listeners = c.listeners.map((hostnames, index) => ({ hostnames, index }));
      for (const r of c.requests) expect(selectListener(listeners, r.host ?? '')?.index ?? null, r.host).toBe(r.expect);
    });
  }
});

describe('route matcher compilation', () => {
  it('rejects a snapshot whose regex does not compile, naming the route and field', () => {
    const routes = routesOf([
      {
        name: 'bad',
        matches: [
          { path: { prefix: '/' } },
          {
            headers: [
              { name: 'x', exact: 'a' },
              { name: 'y', regex: '(' },
            ],
          },
        ],
      },
    ]);
    let caught: unknown;
    try {
      compileRouteMatcher(routes, [], 'xds');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProblemError);
    expect((caught as ProblemError).problems).toEqual([
      {
        source: 'xds',
        object: 'Route bad',
        path: 'routeMatches[1].headers[1].regex',
        message: expect.stringMatching(/^is not a valid regular expression: /) as unknown,
      },
    ]);
  });

  it('names the deprecated field when a path-only match has an invalid regex', () => {
    expect(() => compileRouteMatcher(routesOf([{ name: 'old', legacy: [{ regex: '[' }] }]), [])).toThrow(
      /^snapshot: Route old: matches\[0\]\.regex: is not a valid regular expression: /,
    );
  });

  it('splits a request target into path and raw query', () => {
    expect(splitTarget('/mcp?a=1&b=%20')).toEqual({ path: '/mcp', query: 'a=1&b=%20' });
    expect(splitTarget('/mcp')).toEqual({ path: '/mcp', query: '' });
    expect(splitTarget(undefined)).toEqual({ path: '/', query: '' });
  });
});
