import { describe, expect, it } from 'vitest';
import { preflightHeaders, responseCorsHeaders } from '../../src/proxy/cors.js';

const base = { allowOrigins: ['*'], allowHeaders: ['*'], exposeHeaders: ['Mcp-Session-Id'], allowMethods: [], maxAge: 600, allowCredentials: false };

describe('CORS header computation', () => {
  it('answers any origin with * when credentials are off', () => {
    expect(preflightHeaders(base, 'https://a.example', 'content-type')).toMatchObject({
      'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-max-age': '600',
    });
  });

  it('echoes the origin and the requested headers when credentials are on', () => {
    const h = preflightHeaders({ ...base, allowCredentials: true }, 'https://a.example', 'content-type, authorization');
    expect(h).toMatchObject({
      'access-control-allow-origin': 'https://a.example', 'access-control-allow-headers': 'content-type, authorization',
      'access-control-allow-credentials': 'true',
    });
  });

  it('adds nothing to responses for origins that are not allowed', () => {
    expect(responseCorsHeaders({ ...base, allowOrigins: ['https://ok.example'] }, 'https://no.example')).toEqual({});
    expect(responseCorsHeaders(base, 'https://x.example')['access-control-expose-headers']).toBe('Mcp-Session-Id');
  });
});
