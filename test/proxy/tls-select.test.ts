// Which listener's certificate a TLS client gets on a bind, by the name it sends in SNI.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Listener } from '../../src/ir/types.js';
import { buildBindTls, selectTls } from '../../src/proxy/http/listener-tls.js';
import { listenerTlsOf } from './harness.js';

const pem = (f: string) => readFileSync(path.join(import.meta.dirname, 'tls-testdata', f), 'utf8');

function listener(name: string, hostnames: string[], cert = 'a'): Listener {
  return {
    name,
    bind: 'b',
    hostnames,
    protocol: 'HTTPS',
    frontend: null,
    refusals: [],
    limits: null,
    networkAuthorization: null,
    telemetry: null,
    connectMode: 'CONNECT_MODE_UNSPECIFIED',
    proxyProtocol: null,
    tls: listenerTlsOf([{ certChainPem: pem(`${cert}.crt`), privateKeyPem: pem(`${cert}.key`), source: name }]),
  };
}

/** Name of the listener whose certificate a client sending `servername` gets. */
function pick(listeners: Listener[], servername: string): string {
  return selectTls(buildBindTls(listeners), servername).listener;
}

describe('SNI certificate selection', () => {
  const exact = listener('exact', ['a.example.test']);
  const wide = listener('wide', ['*.example.test'], 'wildcard');
  const narrow = listener('narrow', ['*.c.example.test'], 'wildcard');
  const any = listener('any', [], 'b');

  it('prefers an exact host name over a wildcard that also matches', () => {
    expect(pick([wide, exact], 'a.example.test')).toBe('exact');
  });

  it('prefers the longest matching wildcard', () => {
    expect(pick([wide, narrow], 'x.c.example.test')).toBe('narrow');
    expect(pick([wide, narrow], 'x.d.example.test')).toBe('wide');
  });

  it('matches names case-insensitively and ignores a trailing dot', () => {
    expect(pick([wide, exact], 'A.Example.Test.')).toBe('exact');
  });

  it('does not let a wildcard match its bare parent domain', () => {
    expect(pick([exact, wide], 'example.test')).toBe('exact');
  });

  it('sends unmatched names to a listener without host names, else to the first listener', () => {
    expect(pick([exact, any], 'other.test')).toBe('any');
    expect(pick([exact, wide], 'other.test')).toBe('exact');
  });
});
