// A loopback STAND-IN for Google Model Armor's sanitizeUserPrompt / sanitizeModelResponse (the real service
// cannot be reached from tests). It accepts only a bearer token the stand-in token endpoint issued for a
// service-account assertion whose RS256 signature that endpoint verified with the account's public key, and
// answers a text containing BLOCKME with filterMatchState MATCH_FOUND, anything else with NO_MATCH_FOUND.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeTokenEndpoint } from './fake-token-endpoint.js';

export interface ArmorReceived {
  path: string;
  body: Record<string, unknown>;
  /** The bearer token was issued by the token endpoint for a verified assertion; its claims. */
  claims?: Record<string, unknown>;
}

export interface ModelArmorStandin {
  url: string;
  received: ArmorReceived[];
  close(): Promise<void>;
}

const TEMPLATE =
  /^\/v1\/projects\/[^/]+\/locations\/[^/]+\/templates\/[^/:]+:(sanitizeUserPrompt|sanitizeModelResponse)$/;

export async function startModelArmorStandin(tokens: FakeTokenEndpoint): Promise<ModelArmorStandin> {
  const received: ArmorReceived[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
      const n = /^Bearer fake-token-(\d+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      const claims = n ? tokens.requests[Number(n) - 1]?.claims : undefined;
      received.push({ path: req.url ?? '', body, ...(claims ? { claims } : {}) });
      if (!claims) return answer(401, { error: { code: 401, status: 'UNAUTHENTICATED' } });
      const method = TEMPLATE.exec(req.url ?? '')?.[1];
      const data = (method === 'sanitizeUserPrompt' ? body.userPromptData : body.modelResponseData) as
        { text?: unknown } | undefined;
      if (!method || typeof data?.text !== 'string')
        return answer(400, { error: { code: 400, status: 'INVALID_ARGUMENT' } });
      const match = data.text.includes('BLOCKME') ? 'MATCH_FOUND' : 'NO_MATCH_FOUND';
      answer(200, {
        sanitizationResult: {
          filterMatchState: match,
          filterResults: { rai: { raiFilterResult: { executionState: 'EXECUTION_SUCCESS', matchState: match } } },
          invocationResult: 'SUCCESS',
        },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
