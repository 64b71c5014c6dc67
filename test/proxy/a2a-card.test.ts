// The agent card rewrite rules (src/proxy/a2a/card.ts) on the cases the SDK test does not reach: paths mapped
// back through a rewrite that is not to /, a route with no rewrite, a 0.3 card that prefers gRPC, query strings,
// and a card that is no object.
import { describe, expect, it } from 'vitest';
import { cardBase, isCardFetch, rewriteCard } from '../../src/proxy/a2a/card.js';

const origin = 'https://gw.example.com';

describe('agent card rewrite', () => {
  it('maps an interface path back through a prefix rewrite to another path', () => {
    // The route /team/a is rewritten to /agents/a on the way to the agent.
    const place = { origin, clientBase: '/team/a', upstreamBase: '/agents/a' };
    const card = {
      supportedInterfaces: [
        { url: 'http://10.0.0.7:9999/agents/a/rpc?v=1', protocolBinding: 'JSONRPC' },
        { url: 'http://10.0.0.7:9999/other', protocolBinding: 'jsonrpc' },
        { url: 'http://10.0.0.7:9999/agents/a/rest', protocolBinding: 'HTTP+JSON' },
      ],
    };
    expect(rewriteCard(card, place)).toEqual({
      supportedInterfaces: [
        { url: 'https://gw.example.com/team/a/rpc?v=1', protocolBinding: 'JSONRPC' },
        // Outside the rewritten prefix: the route's prefix goes in front.
        { url: 'https://gw.example.com/team/a/other', protocolBinding: 'jsonrpc' },
      ],
    });
  });

  it('keeps the path the agent names when the route does not rewrite', () => {
    const place = { origin, clientBase: '/a', upstreamBase: '/a' };
    expect(rewriteCard({ url: 'http://localhost:8000/a/', signatures: [{}] }, place)).toEqual({
      url: 'https://gw.example.com/a/',
    });
  });

  it('turns a 0.3 card that prefers gRPC to its JSON-RPC interface, or to the route when it has none', () => {
    const place = { origin, clientBase: '/x/', upstreamBase: '/' };
    const withJsonRpc = {
      url: 'grpc.internal:50051',
      preferredTransport: 'GRPC',
      additionalInterfaces: [
        { url: 'grpc.internal:50051', transport: 'GRPC' },
        { url: 'http://agent.internal/rpc', transport: 'JSONRPC' },
      ],
    };
    expect(rewriteCard(withJsonRpc, place)).toEqual({
      url: 'https://gw.example.com/x/rpc',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'https://gw.example.com/x/rpc', transport: 'JSONRPC' }],
    });
    expect(rewriteCard({ url: 'grpc.internal:50051', preferredTransport: 'GRPC' }, place)).toEqual({
      url: 'https://gw.example.com/x',
      preferredTransport: 'JSONRPC',
    });
  });

  it('passes a value that is no object unchanged, and knows the card paths', () => {
    const place = { origin, clientBase: '/', upstreamBase: '/' };
    expect(rewriteCard([1], place)).toEqual([1]);
    expect(isCardFetch('GET', '/a/.well-known/agent-card.json')).toBe(true);
    expect(isCardFetch('GET', '/.well-known/agent.json')).toBe(true);
    expect(isCardFetch('POST', '/.well-known/agent-card.json')).toBe(false);
    expect(isCardFetch('GET', '/.well-known/agent-card.json.bak')).toBe(false);
    expect(cardBase('/team/a/.well-known/agent-card.json')).toBe('/team/a');
  });
});
