// The second, independent RFC 8693 authorization server of the backend-identity tests: zitadel/oidc's OpenID
// provider, the binary `make zitadel-op` builds from Go modules (test/zitadel-op). It has one confidential
// client (client_secret_basic), accepts subject tokens signed by the keys given here, and lists every
// exchange it accepted at GET /test/exchanges.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { JSONWebKeySet } from 'jose';

const binary = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../zitadel-op/bin/gw-zitadel-op');

/** One exchange the provider accepted. */
export interface ZitadelExchange {
  subject: string;
  actor?: string;
  clientId: string;
  audience: string[] | null;
  scopes: string[] | null;
}

export interface ZitadelOp {
  /** The issuer, `http://127.0.0.1:<port>`; the token endpoint is `/oauth/token`. */
  issuer: string;
  exchanges(): Promise<ZitadelExchange[]>;
  /** The subject the provider's userinfo endpoint names for an access token it issued (undefined: not its token). */
  subjectOf(accessToken: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

export function startZitadelOp(o: {
  clientId: string;
  clientSecret: string;
  subjectIssuer: string;
  subjectJwks: JSONWebKeySet;
}): Promise<ZitadelOp> {
  if (!existsSync(binary))
    throw new Error(
      `${binary} is missing: run \`make zitadel-op\` (builds the test OpenID provider from test/zitadel-op)`,
    );
  const proc = spawn(binary, [], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      GW_ZOP_CLIENT_ID: o.clientId,
      GW_ZOP_CLIENT_SECRET: o.clientSecret,
      GW_ZOP_SUBJECT_ISSUER: o.subjectIssuer,
      GW_ZOP_SUBJECT_JWKS: JSON.stringify(o.subjectJwks),
    },
  });
  return new Promise((resolve, reject) => {
    let started = false;
    proc.once('error', reject);
    proc.once('exit', (code) => started || reject(new Error(`the zitadel OpenID provider exited with ${code}`)));
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const issuer = /^listening (\S+)$/.exec(line)?.[1];
      if (started || !issuer) return;
      started = true;
      resolve(handle(issuer, proc));
    });
  });
}

function handle(issuer: string, proc: ChildProcess): ZitadelOp {
  return {
    issuer,
    exchanges: async () => (await (await fetch(`${issuer}/test/exchanges`)).json()) as ZitadelExchange[],
    subjectOf: async (accessToken) => {
      const res = await fetch(`${issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
      return res.ok ? ((await res.json()) as { sub?: string }).sub : undefined;
    },
    stop: async () => {
      if (proc.exitCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill();
      await exited;
    },
  };
}
