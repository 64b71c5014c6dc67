// A loopback FAKE of an OAuth2 token endpoint, standing in for Microsoft Entra ID
// (`/{tenant}/oauth2/v2.0/token`, client-credentials grant) and Google's token endpoint (JWT-bearer grant,
// the assertion's RS256 signature checked with the service account's public key). Tokens are numbered.
import { createPublicKey, createVerify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenRequest {
  path: string;
  form: Record<string, string>;
  /** JWT-bearer grant: the assertion's claims, when its signature verified. */
  claims?: Record<string, unknown>;
}

export interface FakeTokenEndpoint {
  url: string;
  requests: TokenRequest[];
  /** `fail`: answers 401 invalid_client, with a description that echoes the request. */
  mode: 'ok' | 'fail';
  expiresIn: number;
  close(): Promise<void>;
}

/** `publicKeyPem`: the key JWT assertions must be signed with (JWT-bearer grant). */
export async function startFakeTokenEndpoint(publicKeyPem?: string): Promise<FakeTokenEndpoint> {
  const key: KeyObject | undefined = publicKeyPem ? createPublicKey(publicKeyPem) : undefined;
  const requests: TokenRequest[] = [];
  const fake = { mode: 'ok' as 'ok' | 'fail', expiresIn: 3600 };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      const entry: TokenRequest = { path: req.url ?? '', form };
      const answer = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (form.grant_type === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        const [h = '', c = '', s = ''] = (form.assertion ?? '').split('.');
        const ok =
          key !== undefined && createVerify('RSA-SHA256').update(`${h}.${c}`).verify(key, Buffer.from(s, 'base64url'));
        if (!ok) {
          requests.push(entry);
          return answer(400, { error: 'invalid_grant', error_description: 'bad assertion' });
        }
        entry.claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as Record<string, unknown>;
      }
      requests.push(entry);
      if (fake.mode === 'fail')
        return answer(401, {
          error: 'invalid_client',
          error_description: `client secret ${form.client_secret ?? ''} is wrong`,
        });
      answer(200, { access_token: `fake-token-${requests.length}`, token_type: 'Bearer', expires_in: fake.expiresIn });
    });
  };
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
