// UpstreamTlsPool lifecycle: one dispatcher per (backend, settings), reused across snapshots with the
// same settings, replaced when they change, closed when idle; the insecure warning is logged once.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { BackendTls } from '../../src/ir/types.js';
import { UpstreamTlsPool, tlsFailureReason } from '../../src/proxy/http/upstream-tls.js';

const settings = (o: Partial<BackendTls> = {}): BackendTls => ({
  caPem: '',
  clientCertChainPem: '',
  clientPrivateKeyPem: '',
  sni: 'a.example.test',
  insecureSkipVerify: 'SKIP_NONE',
  verifySubjectAltNames: [],
  source: 'GwPolicy default/p',
  alpnProtocols: [],
  keyExchangeGroups: [],
  workloadIdentity: false,
  ...o,
});

function capture(): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: pino({ level: 'warn' }, sink), lines };
}

describe('UpstreamTlsPool', () => {
  let pool: UpstreamTlsPool | undefined;
  afterEach(async () => {
    await pool?.close();
  });

  it('reuses the dispatcher while the settings stay equal and builds a new one when they change', () => {
    pool = new UpstreamTlsPool({ log: capture().log, connectTimeoutMs: 1000, headersTimeoutMs: 1000 });
    const first = pool.dispatcher('b1', '10.0.0.1', settings());
    expect(pool.dispatcher('b1', '10.0.0.1', settings())).toBe(first);
    expect(pool.dispatcher('b1', '10.0.0.1', settings({ sni: 'b.example.test' }))).not.toBe(first);
    expect(pool.dispatcher('b2', '10.0.0.1', settings())).not.toBe(first);
    expect(pool.size).toBe(3);
  });

  it('closes dispatchers that were not used for the idle period', () => {
    pool = new UpstreamTlsPool({
      log: capture().log,
      connectTimeoutMs: 1000,
      headersTimeoutMs: 1000,
      idleCloseMs: 60_000,
    });
    const old = pool.dispatcher('b1', 'h', settings());
    pool.sweep(Date.now() + 30_000);
    expect(pool.size).toBe(1);
    pool.sweep(Date.now() + 61_000);
    expect(pool.size).toBe(0);
    expect(pool.dispatcher('b1', 'h', settings())).not.toBe(old);
  });

  it('warns once per backend that insecureSkipVerify All turns verification off', () => {
    const { log, lines } = capture();
    pool = new UpstreamTlsPool({ log, connectTimeoutMs: 1000, headersTimeoutMs: 1000 });
    pool.dispatcher('b1', 'h', settings({ insecureSkipVerify: 'SKIP_ALL' }));
    pool.dispatcher('b1', 'h', settings({ insecureSkipVerify: 'SKIP_ALL', sni: 'other' }));
    pool.dispatcher('b1', 'h', settings({ insecureSkipVerify: 'SKIP_HOSTNAME' }));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      backend: 'b1',
      msg: expect.stringContaining('insecureSkipVerify: All'),
    });
  });

  it('names TLS failures without quoting certificates and leaves other errors alone', () => {
    expect(tlsFailureReason({ code: 'SELF_SIGNED_CERT_IN_CHAIN' })).toBe(
      'the backend certificate is not signed by a trusted CA',
    );
    expect(tlsFailureReason({ cause: { code: 'ERR_TLS_CERT_ALTNAME_INVALID' } })).toBe(
      'the backend certificate does not match the host name',
    );
    expect(tlsFailureReason({ code: 'ECONNREFUSED' })).toBeUndefined();
  });
});
