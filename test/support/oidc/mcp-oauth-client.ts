// The client half of the MCP authorization flow for tests: the SDK's OAuthClientProvider kept in memory,
// and a "user agent" that follows the provider's redirects (with cookies) to the authorization code.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** Follows the browser part of the flow (provider redirects, cookies) and returns the code sent to the redirect URI. */
export async function userAuthorizes(start: URL, redirectUrl: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = start;
  for (let i = 0; i < 10; i++) {
    if (url.href.startsWith(redirectUrl)) {
      const code = url.searchParams.get('code');
      if (!code) throw new Error(`no code in ${url.href}`);
      return code;
    }
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, ...v] = (pair ?? '').split('=');
      if (k) jar.set(k.trim(), v.join('='));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`${url.href} answered ${res.status} without a redirect: ${await res.text()}`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}

/** The MCP SDK's client-side OAuth state, kept in memory; the "browser redirect" is recorded, not performed. */
export class TestOAuthProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata() {
    return {
      client_name: 'SDK test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}
