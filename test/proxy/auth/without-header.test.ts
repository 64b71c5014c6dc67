// Dropping a credential header: gone from what every later stage reads (raw headers too), the rest kept, for node:http
// requests (a new headers object) and HTTP/2 compatibility requests (deleted in place) alike.
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { withoutHeader } from '../../../src/proxy/auth/http-jwt.js';

describe('withoutHeader', () => {
  it('gives a node:http request headers without the credential and keeps the others', () => {
    const req = new IncomingMessage(new Socket());
    req.headers = { host: 'a.example', authorization: 'Bearer secret', accept: 'application/json' };
    req.rawHeaders = ['Host', 'a.example', 'Authorization', 'Bearer secret', 'Accept', 'application/json'];
    const before = req.headers;
    withoutHeader(req, 'authorization');
    expect(req.headers).toEqual({ host: 'a.example', accept: 'application/json' });
    expect(req.headers).not.toBe(before);
    expect(req.rawHeaders).toEqual(['Host', 'a.example', 'Accept', 'application/json']);
  });

  it('deletes in place on a request without a headers setter (HTTP/2 compatibility API)', () => {
    const headers = { host: 'a.example', authorization: 'Bearer secret' };
    const req = {
      get headers() {
        return headers;
      },
    } as unknown as IncomingMessage;
    withoutHeader(req, 'authorization');
    expect(req.headers).toEqual({ host: 'a.example' });
  });

  it('leaves a request without the header as it was', () => {
    const req = new IncomingMessage(new Socket());
    req.headers = { host: 'a.example' };
    const before = req.headers;
    withoutHeader(req, 'authorization');
    expect(req.headers).toBe(before);
  });
});
