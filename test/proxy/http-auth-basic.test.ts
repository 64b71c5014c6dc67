// GwPolicy traffic.basicAuthentication on forwarded HTTP routes: users inline or from the policy's Secret
// (`.htaccess`), translated from manifests and served by a real runtime to a real node:http upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seen, startAuthBench, type AuthBench } from './http-auth-harness.js';

// `openssl passwd -apr1 -salt abcdefgh secret` and {SHA} of "hunter2".
const aliceHash = '$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/';
const bobHash = '{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=';
const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('Basic authentication on forwarded HTTP routes', () => {
  let bench: AuthBench;
  const get = (path: string, headers: Record<string, string> = {}) => bench.get(path, headers);

  beforeAll(async () => {
    const htaccess = Buffer.from(`# team\nalice:${aliceHash}\n\nbob:${bobHash}\n`).toString('base64');
    const secrets = `apiVersion: v1
kind: Secret
metadata: {name: users, namespace: default}
data: {.htaccess: ${htaccess}}
---
apiVersion: v1
kind: Secret
metadata: {name: bcrypt-users, namespace: default}
data: {.htaccess: ${Buffer.from('carol:$2y$10$abcdefghijklmnopqrstuuJ3M4a9Qz9nOa0wq6cJ8B0gZx2wS1yUe\n').toString('base64')}}
`;
    bench = await startAuthBench(
      [
        { name: 'inline', traffic: `{basicAuthentication: {realm: "Shop API", users: ["alice:${aliceHash}"]}}` },
        { name: 'secret', traffic: '{basicAuthentication: {secretRef: {name: users}}}' },
        { name: 'optional', traffic: `{basicAuthentication: {mode: Optional, users: ["alice:${aliceHash}"]}}` },
        { name: 'bcrypt', traffic: '{basicAuthentication: {secretRef: {name: bcrypt-users}}}' },
        { name: 'missing', traffic: '{basicAuthentication: {secretRef: {name: nowhere}}}' },
        {
          name: 'inheader',
          traffic: `{basicAuthentication: {users: ["alice:${aliceHash}"], location: {header: {name: X-Basic, prefix: Creds}}}}`,
        },
        {
          name: 'inquery',
          traffic: `{basicAuthentication: {users: ["alice:${aliceHash}"], location: {queryParameter: {name: auth}}}}`,
        },
        {
          name: 'incookie',
          traffic: `{basicAuthentication: {users: ["alice:${aliceHash}"], location: {cookie: {name: creds}}}}`,
        },
      ],
      secrets,
    );
  });

  afterAll(async () => {
    await bench?.close();
  });

  it('answers 401 with a Basic challenge naming the realm and never forwards without credentials', async () => {
    const before = bench.hits();
    const res = await get('/inline/x');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="Shop API", charset="UTF-8"');
    expect(JSON.parse(res.body)).toEqual({ error: 'unauthorized', error_description: 'Basic credentials required' });
    expect(bench.hits()).toBe(before);
  });

  it('reads the credentials from the header, query parameter or cookie location names, and removes them', async () => {
    const creds = Buffer.from('alice:secret').toString('base64');
    const wrong = Buffer.from('alice:wrong').toString('base64');
    // The Authorization header is not where these routes look.
    expect((await get('/inheader/x', { authorization: basic('alice', 'secret') })).status).toBe(401);
    const h = await get('/inheader/x', { 'x-basic': `Creds ${creds}`, authorization: 'Bearer other' });
    expect(h.status).toBe(200);
    expect(seen(h).headers['x-basic']).toBeUndefined();
    expect(seen(h).headers.authorization).toBe('Bearer other');
    expect((await get('/inheader/x', { 'x-basic': `Creds ${wrong}` })).status).toBe(401);
    const q = await get(`/inquery/x?a=1&auth=${encodeURIComponent(creds)}`);
    expect(q.status).toBe(200);
    expect(seen(q).url).toBe('/inquery/x?a=1');
    expect((await get(`/inquery/x?auth=${encodeURIComponent(wrong)}`)).status).toBe(401);
    const c = await get('/incookie/x', { cookie: `theme=dark; creds=${creds}` });
    expect(c.status).toBe(200);
    expect(seen(c).headers.cookie).toBe('theme=dark');
    expect((await get('/incookie/x')).status).toBe(401);
  });

  it('forwards a request with the right password and removes the credentials', async () => {
    const res = await get('/inline/x', { authorization: basic('alice', 'secret') });
    expect(res.status).toBe(200);
    expect(seen(res).headers.authorization).toBeUndefined();
  });

  it.each([
    ['alice', 'wrong'],
    ['mallory', 'secret'],
    ['alice', ''],
  ])('answers 401 invalid_credentials for %s / %s', async (user, password) => {
    const res = await get('/inline/x', { authorization: basic(user, password) });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).error).toBe('invalid_credentials');
  });

  it('checks users from the policy Secret, in both {SHA} and $apr1$ formats', async () => {
    expect((await get('/secret/x', { authorization: basic('alice', 'secret') })).status).toBe(200);
    expect((await get('/secret/x', { authorization: basic('bob', 'hunter2') })).status).toBe(200);
    expect((await get('/secret/x', { authorization: basic('bob', 'secret') })).status).toBe(401);
    expect((await get('/secret/x')).headers['www-authenticate']).toBe('Basic realm="Restricted", charset="UTF-8"');
  });

  it('lets an optional route pass without credentials but not with wrong ones', async () => {
    expect((await get('/optional/x')).status).toBe(200);
    expect((await get('/optional/x', { authorization: basic('alice', 'nope') })).status).toBe(401);
  });

  it.each(['bcrypt', 'missing'])(
    'refuses route %s (unsupported hash format or missing Secret) with 503',
    async (name) => {
      const before = bench.hits();
      const res = await get(`/${name}/x`, { authorization: basic('carol', 'secret') });
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'policy_not_enforced' });
      expect(bench.hits()).toBe(before);
    },
  );

  it('never writes a password or its encoded credentials into logs or error bodies', async () => {
    await get('/inline/x', { authorization: basic('alice', 'wrong-horse-battery') });
    const encoded = Buffer.from('alice:wrong-horse-battery').toString('base64');
    for (const text of [...bench.logged, ...bench.bodies]) {
      expect(text).not.toContain('wrong-horse-battery');
      expect(text).not.toContain(encoded);
      expect(text).not.toContain('hunter2');
    }
  });
});
