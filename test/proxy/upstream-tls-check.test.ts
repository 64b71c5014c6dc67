// The snapshot check NACKs backend TLS the proxy could not use, before any request meets it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { formatProblem } from '../../src/problem.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';

const pem = (f: string): string => readFileSync(join(import.meta.dirname, 'tls-testdata', f), 'utf8');

function withTls(...tls: Record<string, unknown>[]) {
  return normalizeSnapshot({
    version: '1',
    resources: [
      { backend: { name: 's', static: { host: 'h', port: 443 } } },
      { route: { name: 'r', backends: tls.map((t) => ({ backend: 's', weight: 1, tls: t })) } },
    ],
  });
}

describe('backend TLS in the snapshot check', () => {
  it('accepts a CA bundle and a matching client certificate and key', () => {
    expect(
      checkSnapshot(
        withTls({
          caPem: pem('ca.crt'),
          clientCertChainPem: pem('client.crt'),
          clientPrivateKeyPem: pem('client.key'),
        }),
        'xds',
      ),
    ).toEqual([]);
  });

  it('names the route edge whose client key does not match its certificate, without quoting either', () => {
    const problems = checkSnapshot(
      withTls({ sni: 'ok' }, { clientCertChainPem: pem('client.crt'), clientPrivateKeyPem: pem('a.key') }),
      'xds',
    ).map(formatProblem);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^xds: Route r: backends\[1\]\.tls: holds a CA bundle or client certificate that cannot be used \(/,
    );
    expect(problems[0]).not.toMatch(/BEGIN/);
  });

  it('rejects a client certificate without its key', () => {
    expect(checkSnapshot(withTls({ clientCertChainPem: pem('client.crt') }), 'xds').map(formatProblem)).toEqual([
      'xds: Route r: backends[0].tls: must set both client_cert_chain_pem and client_private_key_pem, or neither',
    ]);
  });

  it('rejects a CA bundle that is not PEM', () => {
    expect(
      checkSnapshot(
        withTls({ caPem: '-----BEGIN CERTIFICATE-----\nbm90\n-----END CERTIFICATE-----\n' }, { caPem: 'not pem' }),
        'xds',
      ).map(formatProblem),
    ).toEqual([
      'xds: Route r: backends[0].tls: ca_pem holds a certificate that cannot be parsed',
      'xds: Route r: backends[1].tls: ca_pem holds no PEM certificate',
    ]);
  });
});
