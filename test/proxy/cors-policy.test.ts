import { describe, expect, it } from 'vitest';
import { originMatches, preflightHeaders, responseCorsHeaders } from '../../src/proxy/policy/cors.js';

const base = {
  allowOrigins: ['*'],
  allowHeaders: ['*'],
  exposeHeaders: ['Mcp-Session-Id'],
  allowMethods: [],
  maxAge: 600,
  allowCredentials: false,
};

describe('CORS header computation', () => {
  it('answers any origin with * when credentials are off, and reflects the requested headers for allowHeaders *', () => {
    expect(preflightHeaders(base, 'https://a.example', 'content-type, authorization')).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'content-type, authorization',
      'access-control-max-age': '600',
    });
  });

  it('matches wildcard sub-domain origins on scheme, port and a dot-bounded suffix', () => {
    expect(originMatches('https://*.example.com', 'https://app.example.com')).toBe(true);
    expect(originMatches('https://*.example.com', 'https://a.b.example.com')).toBe(true);
    expect(originMatches('https://*.example.com', 'https://example.com')).toBe(false);
    expect(originMatches('https://*.example.com', 'https://evilexample.com')).toBe(false);
    expect(originMatches('https://*.example.com', 'http://app.example.com')).toBe(false);
    expect(originMatches('https://*.example.com', 'https://app.example.com:8443')).toBe(false);
    expect(originMatches('https://*.example.com:8443', 'https://app.example.com:8443')).toBe(true);
    expect(originMatches('https://App.Example', 'https://app.example')).toBe(true);
  });

  it('echoes the origin and the requested headers when credentials are on', () => {
    const h = preflightHeaders({ ...base, allowCredentials: true }, 'https://a.example', 'content-type, authorization');
    expect(h).toMatchObject({
      'access-control-allow-origin': 'https://a.example',
      'access-control-allow-headers': 'content-type, authorization',
      'access-control-allow-credentials': 'true',
    });
  });

  it('adds nothing to responses for origins that are not allowed', () => {
    expect(responseCorsHeaders({ ...base, allowOrigins: ['https://ok.example'] }, 'https://no.example')).toEqual({});
    expect(responseCorsHeaders(base, 'https://x.example')['access-control-expose-headers']).toBe(
      'Mcp-Session-Id, WWW-Authenticate',
    );
    expect(
      responseCorsHeaders({ ...base, exposeHeaders: ['www-authenticate'] }, 'https://x.example')[
        'access-control-expose-headers'
      ],
    ).toBe('www-authenticate');
  });
});
