// Which listener a TLS connection may reach (TlsBind.misdirected): the SNI name chose the certificate, and a
// listener that verifies clients (`tls-client-verification: SPIFFE`) is reached only over a connection it
// verified — a client without SNI (the fallback's handshake, no client check) naming it in Host is misdirected.
import { createSecureContext } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { TlsBind, type BindTls, type TlsEntry } from '../../src/proxy/http/listener-tls.js';

const entry = (listener: string, verifies = false): TlsEntry => ({
  listener,
  context: createSecureContext({}),
  options: {},
  alpn: [],
  ...(verifies ? { clientIdentity: { snapshot: undefined } } : {}),
});

function bind(): TlsBind {
  const open = entry('svid');
  const verifying = entry('clients', true);
  const table: BindTls = {
    exact: new Map([
      ['svid.example.com', open],
      ['clients.example.com', verifying],
    ]),
    wildcard: [['.open.example.com', entry('wild')]],
    fallback: open,
    handshakeTimeoutMs: 10_000,
    requestCert: true,
  };
  return new TlsBind(table);
}

describe('TlsBind.misdirected', () => {
  it('refuses a client without SNI whose Host names a listener that verifies clients', () => {
    expect(bind().misdirected(undefined, 'clients.example.com')).toBe(true);
    expect(bind().misdirected('', 'clients.example.com:8443')).toBe(true);
    expect(bind().misdirected(false, 'CLIENTS.example.com.')).toBe(true);
  });

  it('lets a client without SNI name a listener that does not verify clients, as before', () => {
    expect(bind().misdirected(undefined, 'svid.example.com')).toBe(false);
    expect(bind().misdirected(undefined, 'a.open.example.com')).toBe(false);
    expect(bind().misdirected(undefined, undefined)).toBe(false);
  });

  it('refuses a Host of another listener than the SNI name chose, either way', () => {
    expect(bind().misdirected('svid.example.com', 'clients.example.com')).toBe(true);
    expect(bind().misdirected('clients.example.com', 'svid.example.com')).toBe(true);
    expect(bind().misdirected('clients.example.com', 'clients.example.com:8443')).toBe(false);
  });
});

describe('TlsBind.unverifiedFor (the listener a request is routed to, however its host was named)', () => {
  it('is true for a verifying listener reached over a handshake of another listener or of none', () => {
    expect(bind().unverifiedFor('clients', 'svid.example.com')).toBe(true);
    expect(bind().unverifiedFor('clients', undefined)).toBe(true);
    expect(bind().unverifiedFor('clients', 'unknown.example.com')).toBe(true);
  });

  it("is false over the verifying listener's own handshake, and for listeners that verify nobody", () => {
    expect(bind().unverifiedFor('clients', 'clients.example.com')).toBe(false);
    expect(bind().unverifiedFor('svid', 'clients.example.com')).toBe(false);
    expect(bind().unverifiedFor('wild', undefined)).toBe(false);
  });
});
