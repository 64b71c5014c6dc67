// HTTPS listeners over xDS: the certificates survive the wire encoding, and a listener that would mix
// protocols on a bind or carries an unusable key is NACKed on its own while the rest is applied.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeResource } from '../../src/ir/load.js';
import type { ResourceInput } from '../../src/ir/types.js';
import { IR_RESOURCE_TYPE, planUpdate } from '../../src/proxy/xds-resources.js';

const pem = (f: string) => readFileSync(path.join(import.meta.dirname, 'tls-testdata', f), 'utf8');
const enc = (name: string, r: ResourceInput) => ({ name, type: IR_RESOURCE_TYPE, body: encodeResource(r) });
const cert = (crt: string, key: string) => ({
  certChainPem: pem(crt),
  privateKeyPem: pem(key),
  source: `Secret default/${crt}`,
});

describe('HTTPS listeners over xDS', () => {
  it('NACKs a plain listener on an HTTPS bind and a listener with a mismatched key, and keeps the rest', () => {
    const plan = planUpdate(
      new Map(),
      {
        upserts: [
          enc('bind/b', { bind: { name: 'b', port: 8443, address: '127.0.0.1' } }),
          enc('listener/a', {
            listener: {
              name: 'a',
              bind: 'b',
              protocol: 'HTTPS',
              hostnames: ['a.example.test'],
              tls: { certificates: [cert('a.crt', 'a.key'), cert('a-rsa.crt', 'a-rsa.key')] },
            },
          }),
          enc('listener/plain', {
            listener: { name: 'plain', bind: 'b', protocol: 'HTTP', hostnames: ['plain.example.test'] },
          }),
          enc('listener/mismatch', {
            listener: {
              name: 'mismatch',
              bind: 'b',
              protocol: 'HTTPS',
              hostnames: ['b.example.test'],
              tls: { certificates: [cert('b.crt', 'a.key')] },
            },
          }),
        ],
        removes: [],
      },
      'xds test',
    );
    expect([...plan.next.keys()].sort()).toEqual(['bind/b', 'listener/a']);
    expect(Object.fromEntries(plan.errors.map((e) => [e.name, e.message]))).toEqual({
      'listener/plain':
        'protocol: is HTTP but bind b already serves HTTPS listener a; one port serves either plain HTTP or HTTPS',
      'listener/mismatch': expect.stringMatching(
        /^tls\.certificates\[0\]: is not a usable certificate and key \(.*mismatch.*\)$/,
      ),
    });
    for (const e of plan.errors) expect(e.message).not.toContain('PRIVATE KEY');
    const a = plan.next.get('listener/a')?.listener;
    expect(a?.tls?.certificates.map((c) => [c.certChainPem, c.privateKeyPem, c.source])).toEqual([
      [pem('a.crt'), pem('a.key'), 'Secret default/a.crt'],
      [pem('a-rsa.crt'), pem('a-rsa.key'), 'Secret default/a-rsa.crt'],
    ]);
  });
});
