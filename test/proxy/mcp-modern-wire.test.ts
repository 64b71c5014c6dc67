// The 2026-07-28 wire rules of src/proxy/mcp/modern.ts, without servers: which POSTs are 2026, the routing
// header checks, the header encoding, results for each kind of client, requestState wrapping and the
// merge rules of server/discover.
import { describe, expect, it } from 'vitest';
import type { JsonRpcRequest } from '../../src/proxy/mcp/jsonrpc.js';
import {
  admitModern,
  combineKeyed,
  decodeHeaderValue,
  encodeHeaderValue,
  headerMismatch,
  isModernPost,
  modernStatus,
  offeredVersions,
  toLegacyResult,
  toModernResult,
  unwrapRequestState,
  withEnvelope,
  withoutEnvelope,
  wrapRequestState,
} from '../../src/proxy/mcp/modern.js';

const claim = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
const call = (method: string, params: Record<string, unknown> = {}): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  params: { ...params, _meta: claim },
});

describe('which POSTs are 2026-07-28', () => {
  it('takes one message claiming 2026-07-28, a server/discover, or one whose header names 2026; never a batch', () => {
    expect(isModernPost([call('tools/list')], false)).toBe(true);
    expect(isModernPost([{ jsonrpc: '2.0', id: 1, method: 'server/discover' }], false)).toBe(true);
    expect(isModernPost([call('tools/list')], true)).toBe(false);
    expect(isModernPost([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], false)).toBe(false);
    // A claim-less request whose header names 2026 is a malformed 2026 request (refused), not a 2025 one.
    expect(isModernPost([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], false, '2026-07-28')).toBe(true);
    expect(isModernPost([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], false, '2025-11-25')).toBe(false);
    // initialize is 2026 (and refused as removed) only by its claim: a 2025 client's never carries one.
    expect(isModernPost([call('initialize')], false)).toBe(true);
    const init = { jsonrpc: '2.0' as const, id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } };
    expect(isModernPost([init], false, '2026-07-28')).toBe(false);
    const old = {
      jsonrpc: '2.0' as const,
      id: 1,
      method: 'server/discover',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
    };
    expect(isModernPost([old], false)).toBe(false);
  });
});

describe('routing headers', () => {
  const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'a_echo' };
  it('accepts headers that agree with the body, in plain or base64 form', () => {
    expect(headerMismatch(call('tools/call', { name: 'a_echo' }), headers, '2026-07-28')).toBeUndefined();
    const b64 = { ...headers, 'mcp-name': encodeHeaderValue('ünï') };
    expect(headerMismatch(call('tools/call', { name: 'ünï' }), b64, '2026-07-28')).toBeUndefined();
  });
  it('names the disagreement: version, method, name, or a missing header', () => {
    expect(
      headerMismatch(call('tools/call', { name: 'a_echo' }), { ...headers, 'mcp-method': 'tools/list' }, '2026-07-28'),
    ).toMatch(/Mcp-Method/);
    expect(headerMismatch(call('tools/call', { name: 'b_echo' }), headers, '2026-07-28')).toMatch(
      /Mcp-Name header names "a_echo"/,
    );
    expect(
      headerMismatch(
        call('tools/call', { name: 'a_echo' }),
        { ...headers, 'mcp-protocol-version': '2025-11-25' },
        '2026-07-28',
      ),
    ).toMatch(/MCP-Protocol-Version/);
    expect(
      headerMismatch(
        call('resources/read', { uri: 'file:///x' }),
        { ...headers, 'mcp-method': 'resources/read', 'mcp-name': undefined },
        '2026-07-28',
      ),
    ).toMatch(/required/);
  });
  it('encodes values that are not plain visible ASCII and refuses broken base64', () => {
    expect(encodeHeaderValue('echo')).toBe('echo');
    expect(encodeHeaderValue(' padded')).toMatch(/^=\?base64\?/);
    expect(decodeHeaderValue(encodeHeaderValue('日本'))).toBe('日本');
    expect(decodeHeaderValue('=?base64?***?=')).toBeUndefined();
  });
});

describe('admitting a 2026 request (the order the conformance suite checks)', () => {
  const caps = { 'io.modelcontextprotocol/clientCapabilities': {} };
  const req = (method: string, meta: Record<string, unknown> | undefined, params: Record<string, unknown> = {}) =>
    ({ jsonrpc: '2.0', id: 9, method, params: meta ? { ...params, _meta: meta } : params }) as JsonRpcRequest;
  const headers = (method: string, version = '2026-07-28') => ({
    'mcp-protocol-version': version,
    'mcp-method': method,
  });
  const supported = ['2026-07-28', '2025-11-25'];
  const refusal = (r: JsonRpcRequest, h: Record<string, string>) => {
    const out = admitModern(r, h, supported);
    return 'status' in out ? { status: out.status, code: out.answer.error.code, id: out.answer.id } : out;
  };
  it('refuses a missing _meta, protocol version or client capabilities with 400 and -32602', () => {
    const h = headers('server/discover');
    expect(refusal(req('server/discover', undefined), h)).toEqual({ status: 400, code: -32602, id: 9 });
    expect(refusal(req('server/discover', caps), h)).toEqual({ status: 400, code: -32602, id: 9 });
    expect(refusal(req('server/discover', claim), h)).toEqual({ status: 400, code: -32602, id: 9 });
    // clientInfo is a SHOULD: a request without it is served.
    expect(refusal(req('server/discover', { ...claim, ...caps }), h)).toMatchObject({
      protocolVersion: '2026-07-28',
      clientCapabilities: {},
    });
  });
  it('answers a header that disagrees with the claim -32020 before judging the version (-32022)', () => {
    const v999 = { ...caps, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' };
    expect(refusal(req('server/discover', v999), headers('server/discover'))).toEqual({
      status: 400,
      code: -32020,
      id: 9,
    });
    const out = admitModern(req('server/discover', v999), headers('server/discover', 'v999.0.0'), supported);
    expect(out).toMatchObject({
      status: 400,
      answer: { error: { code: -32022, data: { supported, requested: 'v999.0.0' } } },
    });
  });
  it('refuses the methods 2026-07-28 removed with 404 and -32601', () => {
    for (const m of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])
      expect(refusal(req(m, { ...claim, ...caps }), headers(m))).toEqual({ status: 404, code: -32601, id: 9 });
  });
  it('gives a 2026 client’s protocol errors their HTTP status; other errors and results travel in a 200', () => {
    const err = (code: number) => ({ jsonrpc: '2.0' as const, id: 1, error: { code, message: 'x' } });
    expect([-32601, -32020, -32021, -32022, -32602, -32603].map((c) => modernStatus(err(c)))).toEqual([
      404, 400, 400, 400, 200, 200,
    ]);
    expect(modernStatus({ jsonrpc: '2.0', id: 1, result: {} })).toBe(200);
  });
});

describe('the envelope per hop', () => {
  const env = {
    protocolVersion: '2026-07-28',
    clientCapabilities: { roots: {} },
    clientInfo: { name: 'c', version: '1' },
  };
  it('adds the envelope for a 2026 target keeping the caller’s own _meta keys, and takes it off for a 2025 one', () => {
    const sent = withEnvelope({ name: 't', _meta: { progressToken: 'p' } }, env);
    expect(sent._meta).toMatchObject({
      progressToken: 'p',
      ...claim,
      'io.modelcontextprotocol/clientCapabilities': { roots: {} },
    });
    expect(withoutEnvelope(sent)).toEqual({ name: 't', _meta: { progressToken: 'p' } });
    expect(withoutEnvelope(withEnvelope({ name: 't' }, env))).toEqual({ name: 't' });
  });
});

describe('results for each kind of client', () => {
  const gw = { name: 'gw', version: '1' };
  it('marks no proxied result cacheable for a 2026 client, whatever the target said, and names the gateway', () => {
    const out = toModernResult('tools/list', { tools: [], ttlMs: 60_000, cacheScope: 'public' }, gw);
    expect(out).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(out._meta).toEqual({ 'io.modelcontextprotocol/serverInfo': gw });
    expect(toModernResult('tools/call', { content: [], ttlMs: 5 }, gw)).not.toHaveProperty('ttlMs');
    expect(toModernResult('tools/call', { resultType: 'input_required', requestState: 's' }, gw).resultType).toBe(
      'input_required',
    );
  });
  it('takes the 2026 fields off for a 2025 client', () => {
    expect(toLegacyResult({ content: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private' })).toEqual({
      content: [],
    });
  });
});

describe('requestState and discover', () => {
  it('wraps a target’s state with the target’s name and unwraps only what it wrapped', () => {
    const w = wrapRequestState('a_b', 'opaque.state');
    expect(unwrapRequestState(w)).toEqual({ target: 'a_b', state: 'opaque.state' });
    expect(unwrapRequestState('opaque.state')).toBeUndefined();
  });
  it('intersects versions: 2025 ones always reachable, 2026-07-28 unless a 2026 target leaves it out', () => {
    const own = ['2026-07-28', '2025-11-25', '2025-06-18'];
    expect(offeredVersions(own, [['2026-07-28']])).toEqual(own);
    expect(offeredVersions(own, [['2026-07-28'], ['2027-03-01']])).toEqual(['2025-11-25', '2025-06-18']);
  });
  it('combines extensions: a key any target offers is offered, settings of one key merged', () => {
    expect(combineKeyed([{ 'io.x/tasks': { a: 1 } }, undefined, { 'io.x/tasks': { b: 2 }, 'io.y/ui': {} }])).toEqual({
      'io.x/tasks': { a: 1, b: 2 },
      'io.y/ui': {},
    });
    expect(combineKeyed([undefined, {}])).toBeUndefined();
  });
});
