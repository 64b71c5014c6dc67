// htpasswd hash checks against hashes made by openssl (testdata/htpasswd-hashes.yaml).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { supportedHash, verifyHtpasswd } from '../../src/proxy/auth/htpasswd.js';

const cases = parse(readFileSync(new URL('./testdata/htpasswd-hashes.yaml', import.meta.url), 'utf8')) as {
  password: string;
  hash: string;
}[];

describe('htpasswd hashes', () => {
  it.each(cases)('accepts the right password for $hash', ({ password, hash }) => {
    expect(supportedHash(hash)).toBe(true);
    expect(verifyHtpasswd(hash, password)).toBe(true);
  });

  it.each(cases)('rejects a wrong password for $hash', ({ password, hash }) => {
    expect(verifyHtpasswd(hash, `${password}x`)).toBe(false);
    expect(verifyHtpasswd(hash, '')).toBe(false);
  });

  it.each(['$2y$10$abcdefghijklmnopqrstuuJ3M4a9Qz9nOa0wq6cJ8B0gZx2wS1yUe', '$6$salt$abc', 'plaintext', '{SHA}short'])(
    'does not support %s',
    (hash) => {
      expect(supportedHash(hash)).toBe(false);
      expect(verifyHtpasswd(hash, 'plaintext')).toBe(false);
    },
  );
});
