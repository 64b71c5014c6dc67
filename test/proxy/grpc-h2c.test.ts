// gRPC end to end through a plain listener: a real @grpc/grpc-js client speaks h2c with prior knowledge
// to the proxy, a GRPCRoute (HTTP/2 upstream by default) forwards to a real grpc-js server over h2c.
// Unary and server-streaming calls succeed, response metadata and trailers (grpc-status, custom
// trailing metadata) arrive, an error status passes through, and a deadline reaches the server.
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log } from './http-forward-harness.js';
import { gatewayWithStaticBackend, translatedIr } from './translated-ir.js';

interface HelloReply {
  message: string;
}
type Greeter = grpc.Client & {
  SayHello(
    req: { name: string },
    md: grpc.Metadata,
    opts: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, reply?: HelloReply) => void,
  ): grpc.ClientUnaryCall;
  Count(req: { to: number }): grpc.ClientReadableStream<HelloReply>;
};

const def = protoLoader.loadSync(path.join(import.meta.dirname, 'testdata', 'greeter.proto'));
const pkg = grpc.loadPackageDefinition(def) as unknown as {
  gwtest: { Greeter: grpc.ServiceClientConstructor };
};

function manifests(port: number): string {
  return `${gatewayWithStaticBackend(port, 'greeter')}---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: greeter, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{method: {service: gwtest.Greeter}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: greeter}]
`;
}

describe('gRPC through a GRPCRoute over h2c', () => {
  let server: grpc.Server;
  let runtime: ProxyRuntime;
  let client: Greeter;
  let deadlineSeen: grpc.Deadline | undefined;

  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(pkg.gwtest.Greeter.service, {
      SayHello: (call: grpc.ServerUnaryCall<{ name: string }, HelloReply>, cb: grpc.sendUnaryData<HelloReply>) => {
        deadlineSeen = call.getDeadline();
        if (call.request.name === 'nobody') {
          cb({ code: grpc.status.NOT_FOUND, details: 'no such person' });
          return;
        }
        const header = new grpc.Metadata();
        header.set('x-greeted', call.request.name);
        call.sendMetadata(header);
        const trailer = new grpc.Metadata();
        trailer.set('x-trailer', 'after');
        cb(null, { message: `hello ${call.request.name}` }, trailer);
      },
      Count: (call: grpc.ServerWritableStream<{ to: number }, HelloReply>) => {
        for (let i = 1; i <= call.request.to; i++) call.write({ message: String(i) });
        call.end();
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(manifests(port)));
    const proxyPort = Object.values(runtime.boundPorts())[0] as number;
    client = new pkg.gwtest.Greeter(`127.0.0.1:${proxyPort}`, grpc.credentials.createInsecure()) as unknown as Greeter;
  });
  afterAll(async () => {
    client?.close();
    await runtime?.close();
    server?.forceShutdown();
  });

  const sayHello = (name: string, deadline?: Date) =>
    new Promise<{
      err: grpc.ServiceError | null;
      reply?: HelloReply;
      header?: grpc.Metadata;
      status?: grpc.StatusObject;
    }>((resolve) => {
      let header: grpc.Metadata | undefined;
      let status: grpc.StatusObject | undefined;
      let result: { err: grpc.ServiceError | null; reply?: HelloReply } | undefined;
      const done = () => {
        if (result && status) resolve({ ...result, ...(header ? { header } : {}), status });
      };
      const call = client.SayHello({ name }, new grpc.Metadata(), deadline ? { deadline } : {}, (err, reply) => {
        result = { err, ...(reply ? { reply } : {}) };
        done();
      });
      call.on('metadata', (m) => (header = m));
      call.on('status', (s) => {
        status = s;
        done();
      });
    });

  it('passes a unary call with its response metadata and trailing metadata', async () => {
    const { err, reply, header, status } = await sayHello('ada');
    expect(err).toBeNull();
    expect(reply?.message).toBe('hello ada');
    expect(header?.get('x-greeted')).toEqual(['ada']);
    expect(status?.code).toBe(grpc.status.OK);
    expect(status?.metadata.get('x-trailer')).toEqual(['after']);
  });

  it('passes a server-streaming call whole', async () => {
    const got: string[] = [];
    const status = await new Promise<grpc.StatusObject>((resolve, reject) => {
      const call = client.Count({ to: 5 });
      call.on('data', (m: HelloReply) => got.push(m.message));
      call.on('status', resolve);
      call.on('error', reject);
    });
    expect(got).toEqual(['1', '2', '3', '4', '5']);
    expect(status.code).toBe(grpc.status.OK);
  });

  it('passes an error status and its message through', async () => {
    const { err, status } = await sayHello('nobody');
    expect(err?.code).toBe(grpc.status.NOT_FOUND);
    expect(err?.details).toBe('no such person');
    expect(status?.code).toBe(grpc.status.NOT_FOUND);
  });

  it('passes the call deadline on to the server (grpc-timeout)', async () => {
    await sayHello('ann');
    expect(deadlineSeen).toBe(Infinity);
    const deadline = new Date(Date.now() + 60_000);
    const { err } = await sayHello('bob', deadline);
    expect(err).toBeNull();
    // grpc-timeout is relative: the server's deadline lands near the client's, never after it.
    expect(Number(deadlineSeen)).toBeLessThanOrEqual(deadline.getTime() + 1000);
    expect(Number(deadlineSeen)).toBeGreaterThan(deadline.getTime() - 30_000);
  });
});
