// The coverage table cannot drift from the schemas or the IR (issue 14): every schema leaf is
// classified, every `enforced` entry names a real IR field, and no entry is stale.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GwBackendSpec, GwModelSpec, GwParametersSpec, GwPolicySpec } from '../../src/api/index.js';
import { ConfigFile } from '../../src/config/schema.js';
import { coverageTables, refusalsOf, securityFieldsOf, type CoveredKind } from '../../src/coverage/index.js';
import { schemaLeaves } from '../../src/coverage/leaves.js';
import { classify, covers } from '../../src/coverage/match.js';
import { irFieldsRead } from './ir-reads.js';

const schemas: Record<CoveredKind, [unknown, string]> = {
  GwPolicy: [GwPolicySpec, 'spec'],
  GwBackend: [GwBackendSpec, 'spec'],
  GwModel: [GwModelSpec, 'spec'],
  GwParameters: [GwParametersSpec, 'spec'],
  standalone: [ConfigFile, ''],
};

/** `Message.fieldName` (camelCase) of every field of every message in proto/gw/ir/v1. */
function irFields(): Set<string> {
  const dir = 'proto/gw/ir/v1';
  const out = new Set<string>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.proto'))) {
    let msg = '';
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      const m = /^\s*message\s+(\w+)/.exec(line);
      if (m) msg = m[1] ?? '';
      const field = /^\s*(?:repeated\s+|optional\s+)?[\w.<>, ]+\s+(\w+)\s*=\s*\d+/.exec(line);
      if (msg && field?.[1]) out.add(`${msg}.${field[1].replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())}`);
    }
  }
  return out;
}

const leavesOf = (kind: CoveredKind): string[] => {
  const [schema, root] = schemas[kind];
  return schemaLeaves(schema, root).map((p) => p.replace(/^\./, ''));
};

describe('coverage table', () => {
  const ir = irFields();
  // One type-checked program for every kind (tens of seconds on a busy machine).
  let read: Set<string> | undefined;
  const proxyReads = (): Set<string> => (read ??= irFieldsRead());
  for (const kind of Object.keys(schemas) as CoveredKind[]) {
    it(`classifies every leaf field of ${kind}`, () => {
      const missing = leavesOf(kind).filter((p) => !classify(coverageTables[kind], p));
      expect(missing).toEqual([]);
    });
    it(`names only IR fields that exist for ${kind}`, () => {
      const wrong = Object.entries(coverageTables[kind]).flatMap(([p, c]) =>
        'enforced' in c && !ir.has(c.enforced) ? [`${p} → ${c.enforced}`] : [],
      );
      expect(wrong).toEqual([]);
    });
    it(`names for ${kind} only IR fields the proxy reads off their message`, { timeout: 240_000 }, () => {
      const reads = proxyReads();
      const unread = Object.entries(coverageTables[kind]).flatMap(([p, c]) =>
        'enforced' in c && !reads.has(c.enforced) ? [`${p} → ${c.enforced}`] : [],
      );
      expect(unread).toEqual([]);
    });
    it(`has no stale entry for ${kind}`, () => {
      const leaves = leavesOf(kind);
      const stale = Object.keys(coverageTables[kind]).filter((pattern) => !leaves.some((l) => covers(pattern, l)));
      expect(stale).toEqual([]);
    });
  }
});

describe('refusalsOf', () => {
  it("refuses none of an MCP target's own policies: its HTTP version, request timeout and TLS groups are enforced", () => {
    const policies = {
      http: { version: 'HTTP2', requestTimeout: '5s' },
      tls: { keyExchangeGroups: ['X25519_MLKEM768'] },
    };
    const spec = { mcp: { targets: [{ name: 't', static: { host: 'a.example', port: 80, policies } }] } };
    // Issue 37: the last refused row (a target's http.version) is enforced (BackendRef.targetHttpVersions).
    expect(refusalsOf('GwBackend', spec)).toEqual([]);
    // health.unhealthyCondition is enforced (issue 37): a GwPolicy setting it and cors has nothing refused.
    const policy = { traffic: { cors: { allowOrigins: ['*'] } }, backend: { health: { unhealthyCondition: 'true' } } };
    expect(refusalsOf('GwPolicy', policy)).toEqual([]);
  });
  it('refuses a value only where the table lists it: conditional direct responses, strategy.merge Replace and token limits are enforced', () => {
    expect(refusalsOf('GwPolicy', { strategy: { merge: 'Replace' } })).toEqual([]);
    expect(refusalsOf('GwPolicy', { traffic: { rateLimit: { local: [{ tokens: 10, unit: 'Minutes' }] } } })).toEqual(
      [],
    );
    expect(
      refusalsOf('GwPolicy', {
        traffic: { directResponse: { conditional: [{ condition: 'true', response: { status: 201 } }] } },
      }),
    ).toEqual([]);
  });
  it('keeps array indexes in the field path', () => {
    const spec = {
      mcp: {
        targets: [
          { name: 'a', static: { host: 'h', port: 1 } },
          { name: 'b', static: { host: 'h', port: 1, policies: { tls: { sni: 'x' }, http: { version: 'HTTP2' } } } },
        ],
      },
    };
    // No GwBackend field is refused any more (issue 37): the security fields keep their indexes the same way.
    expect(securityFieldsOf('GwBackend', spec)).toEqual(['spec.mcp.targets[1].static.policies.tls.sni']);
  });
});

describe('refusalsOf on enforced durations', () => {
  it('refuses no jwks cacheDuration, the default or another (JwtProvider.jwksCacheSeconds carries it)', () => {
    const jwt = (cacheDuration: string) => ({
      traffic: {
        jwtAuthentication: { providers: [{ issuer: 'i', jwks: { remote: { url: 'https://i/jwks', cacheDuration } } }] },
      },
    });
    expect(refusalsOf('GwPolicy', jwt('5m'))).toEqual([]);
    expect(refusalsOf('GwPolicy', jwt('1h'))).toEqual([]);
  });
});

describe('refusalsOf on free-form values', () => {
  it('refuses no modelCatalog source and no rawConfig key (the proxy reads each)', () => {
    const catalog = { modelCatalog: { sources: [{ configMap: { name: 'c', key: 'models.yaml' } }] } };
    expect(refusalsOf('GwParameters', catalog)).toEqual([]);
    expect(
      refusalsOf('GwParameters', { rawConfig: { limits: { maxSessions: 3 }, logging: { level: 'debug' } } }),
    ).toEqual([]);
  });
});

describe('listenerRefusals', () => {
  it('lists no refused frontend field: every one a GwPolicy makes effective on a listener is enforced', async () => {
    const { listenerRefusals } = await import('../../src/translate/listeners/listeners.js');
    const fe = {
      fields: {
        'frontend.tcp': { keepalive: { retries: 3 } },
        'frontend.tls': { keyExchangeGroups: ['X25519_MLKEM768'] },
      },
      provenance: {
        'frontend.tcp': { source: 'GwPolicy default/fe', level: 'Gateway', overridden: [] },
        'frontend.tls': { source: 'GwPolicy default/fe', level: 'Gateway', overridden: [] },
      },
      conflicts: [],
    };
    // Every frontend field is enforced now (X25519_MLKEM768 and keepalive retries included): nothing is listed.
    expect(listenerRefusals(fe).map((r) => [r.field, r.security])).toEqual([]);
  });
});

// Issue 31: which fields concern security is a property of every entry (`guarding` in src/coverage/types.ts),
// the one source for "an invalid object that sets it closes what it targets". A new field whose name says it
// guards something fails here until its entry is marked, or is named below with the reason it is not.
const SECURITY_WORDS =
  /(authentication|authorization|extAuth|extProc|csrf|cors|(^|\.)tls\b|guard|moderation|jwt|apiKey|(^|\.)auth\b|credential|secret|certificate|insecure|verify)/i;
const NOT_SECURITY: Readonly<Record<string, string>> = {};

describe('security classification', () => {
  for (const kind of Object.keys(schemas) as CoveredKind[]) {
    it(`gives every leaf field of ${kind} a security flag`, () => {
      const unflagged = leavesOf(kind).filter(
        (p) => typeof classify(coverageTables[kind], p)?.[1].security !== 'boolean',
      );
      expect(unflagged).toEqual([]);
    });
    it(`marks every ${kind} field whose name says it guards something as security`, () => {
      const unmarked = leavesOf(kind).filter(
        (p) => SECURITY_WORDS.test(p) && !(p in NOT_SECURITY) && !classify(coverageTables[kind], p)?.[1].security,
      );
      expect(unmarked).toEqual([]);
    });
  }
  it('names the security fields an object sets at their shortest security-relevant path', () => {
    const spec = {
      traffic: {
        jwtAuthentication: { providers: [{ issuer: 'i', jwks: { remote: { url: 'u', path: '/k' } } }] },
        timeouts: { request: '1s' },
      },
      backend: { tls: { sni: 'x', caCertificateRefs: [{ name: 'ca' }] }, mcp: { authorization: {} } },
    };
    expect(securityFieldsOf('GwPolicy', spec)).toEqual([
      'spec.backend.mcp.authorization',
      'spec.backend.tls.caCertificateRefs',
      'spec.backend.tls.sni',
      'spec.traffic.jwtAuthentication',
    ]);
  });
  it('counts a wrongly typed value under a security leaf as setting it', () => {
    expect(
      securityFieldsOf('GwBackend', { mcp: { targets: [{ static: { policies: { tls: { sni: { x: 1 } } } } }] } }),
    ).toEqual(['spec.mcp.targets[0].static.policies.tls.sni']);
  });
});
