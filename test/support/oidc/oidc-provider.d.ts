// The few parts of oidc-provider 9 the test harness uses (the package ships no type declarations).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type ClientMetadata = Record<string, unknown> & { client_id: string };

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface KoaContextWithOIDC {
    body?: unknown;
    oidc: {
      provider: { Grant: new (init: { clientId: string; accountId: string }) => GrantInstance };
      client?: { clientId: string };
      params?: Record<string, unknown>;
      session?: { accountId?: string };
    };
  }

  export interface InteractionDetails {
    grantId?: string;
    params: Record<string, unknown>;
    prompt: {
      name: string;
      details: { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    };
  }

  export class OIDCProviderError extends Error {
    constructor(description?: string);
  }

  export const errors: {
    InvalidGrant: typeof OIDCProviderError;
    InvalidRequest: typeof OIDCProviderError;
    InvalidClient: typeof OIDCProviderError;
  };

  export interface AccessTokenInstance {
    save(): Promise<string>;
  }

  export default class Provider {
    AccessToken: {
      new (init: Record<string, unknown>): AccessTokenInstance;
      find(value: string): Promise<(Record<string, unknown> & { accountId?: string; clientId?: string }) | undefined>;
    };
    registerGrantType(
      name: string,
      handler: (ctx: KoaContextWithOIDC) => Promise<void>,
      params?: string[],
      dupes?: string[],
    ): void;
    Grant: {
      new (init: { clientId: string; accountId: string }): GrantInstance;
      find(id: string): Promise<GrantInstance>;
    };
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      opts?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (ctx: unknown, err: unknown) => void): this;
  }
}
