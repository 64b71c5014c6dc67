// gRPC through Gw with real grpc-js on both sides: a client speaks HTTP/2 over TLS to an HTTPS listener,
// the route's edge has `backend.http.version: HTTP2`, and the backend is a grpc-js server over h2c. Unary and
// server-streaming calls work, an error status and metadata come back in trailers. Without HTTP/2 upstream
// a gRPC backend cannot be reached at all, so each call fails if the field is skipped.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log } from './http-forward-harness.js';
import { httpsManifests } from './https-manifests.js';
import { routeBackendPolicy, translatedIr } from './translated-ir.js';

type Msg = { text: string };
type EchoClient = grpc.Client & {
  Say(m: Msg, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, r?: Msg) => void): grpc.ClientUnaryCall;
  Fail(m: Msg, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, r?: Msg) => void): grpc.ClientUnaryCall;
  Count(m: Msg): grpc.ClientReadableStream<Msg>;
};

const definition = protoLoader.loadSync(path.join(import.meta.dirname, 'testdata/echo.proto'));
const Echo = (grpc.loadPackageDefinition(definition).gwtest as grpc.GrpcObject).Echo as grpc.ServiceClientConstructor;
const ca = readFileSync(path.join(import.meta.dirname, 'tls-testdata/ca.crt'));

describe('gRPC through an HTTPS listener to an h2c backend', () => {
  let server: grpc.Server;
  let runtime: ProxyRuntime;
  let client: EchoClient;

  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(Echo.service, {
      Say: (call: grpc.ServerUnaryCall<Msg, Msg>, cb: grpc.sendUnaryData<Msg>) => {
        const who = call.metadata.get('x-who')[0];
        cb(null, { text: `hello ${call.request.text} from ${String(who)}` });
      },
      Count: (call: grpc.ServerWritableStream<Msg, Msg>) => {
        for (let i = 1; i <= 3; i++) call.write({ text: `${call.request.text} ${i}` });
        call.end();
      },
      Fail: (_call: grpc.ServerUnaryCall<Msg, Msg>, cb: grpc.sendUnaryData<Msg>) => {
        const md = new grpc.Metadata();
        md.set('x-reason', 'not-today');
        cb({ code: grpc.status.FAILED_PRECONDITION, details: 'refused on purpose', metadata: md });
      },
    });
    const upstreamPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    runtime = new ProxyRuntime({ log });
    await runtime.apply(
      translatedIr(`${httpsManifests(upstreamPort, '{}')}${routeBackendPolicy('app', '{http: {version: HTTP2}}')}`),
    );
    const port = Object.values(runtime.boundPorts())[0] as number;
    client = new Echo(`127.0.0.1:${port}`, grpc.credentials.createSsl(ca), {
      'grpc.ssl_target_name_override': 'a.example.test',
      'grpc.default_authority': 'a.example.test',
    }) as unknown as EchoClient;
  });
  afterAll(async () => {
    client?.close();
    await runtime?.close();
    server?.forceShutdown();
  });

  it('answers a unary call, with the request metadata passed on', async () => {
    const md = new grpc.Metadata();
    md.set('x-who', 'gw-test');
    const reply = await new Promise<Msg>((resolve, reject) =>
      client.Say({ text: 'there' }, md, (err, r) => (err ? reject(err) : resolve(r as Msg))),
    );
    expect(reply.text).toBe('hello there from gw-test');
  });

  it('streams a server-streaming call to its end', async () => {
    const got: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const call = client.Count({ text: 'n' });
      call.on('data', (m: Msg) => got.push(m.text));
      call.on('error', reject);
      call.on('end', () => resolve());
    });
    expect(got).toEqual(['n 1', 'n 2', 'n 3']);
  });

  it('passes an error status, its message and trailing metadata back', async () => {
    const err = await new Promise<grpc.ServiceError>((resolve) =>
      client.Fail({ text: 'x' }, new grpc.Metadata(), (e) => resolve(e as grpc.ServiceError)),
    );
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(err.details).toBe('refused on purpose');
    expect(err.metadata.get('x-reason')).toEqual(['not-today']);
  });
});
