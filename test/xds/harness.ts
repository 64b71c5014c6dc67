// Shared pieces of the xDS tests: real servers on 127.0.0.1:0, real clients, and waiting helpers.
import { pino } from 'pino';
import { Registry } from 'prom-client';
import * as grpc from '@grpc/grpc-js';
import { createXdsServer, type XdsServer, type XdsServerOptions } from '../../src/xds/server.js';
import {
  createXdsClient,
  type ApplyResult,
  type XdsClient,
  type XdsClientOptions,
  type XdsUpdate,
} from '../../src/xds/client.js';
import { createMemorySource, type MemorySource } from '../../src/xds/memory-source.js';
import {
  METHOD_NAME,
  xdsServiceDefinition,
  type DeltaRequest,
  type DeltaResponse,
  type NodeMessage,
} from '../../src/xds/protocol.js';
import type { XdsResource } from '../../src/xds/snapshot.js';

export const log = pino({ level: process.env.GW_TEST_LOG ?? 'silent' });

export function res(text: string, type = 'test.v1.Thing'): XdsResource {
  return { type, body: Buffer.from(text) };
}

export async function startServer(
  source: MemorySource,
  opts: Partial<XdsServerOptions> = {},
): Promise<{ server: XdsServer; registry: Registry }> {
  const registry = new Registry();
  const server = await createXdsServer({
    source,
    log,
    port: 0,
    host: '127.0.0.1',
    mode: 'plaintext',
    registry,
    ...opts,
  });
  return { server, registry };
}

/** A proxy stand-in: applies updates into a map, rejecting names listed in `reject`. */
export interface FakeProxy {
  client: XdsClient;
  state: Map<string, string>;
  updates: XdsUpdate[];
  reject: Set<string>;
}

export function startProxy(port: number, opts: Partial<XdsClientOptions> = {}): FakeProxy {
  const state = new Map<string, string>();
  const updates: XdsUpdate[] = [];
  const reject = new Set<string>();
  const apply = (u: XdsUpdate): ApplyResult => {
    updates.push(u);
    const errors = [];
    for (const r of u.upserts) {
      if (reject.has(r.name)) errors.push({ name: r.name, message: `cannot apply ${r.name}` });
      else state.set(r.name, Buffer.from(r.body).toString());
    }
    for (const n of u.removes) state.delete(n);
    return { errors };
  };
  const client = createXdsClient({
    address: `127.0.0.1:${port}`,
    gateway: 'default/gw',
    podName: 'proxy-0',
    log,
    apply,
    ...opts,
  });
  return { client, state, updates, reject };
}

export async function waitFor(what: string, predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function names(u: XdsUpdate | undefined): { upserts: string[]; removes: string[] } {
  return { upserts: (u?.upserts ?? []).map((r) => r.name), removes: u?.removes ?? [] };
}

/** The raw protocol, for asserting what is on the wire without the client's bookkeeping. */
export interface RawStream {
  responses: DeltaResponse[];
  status: Promise<grpc.StatusObject>;
  send(req: DeltaRequest): void;
  close(): void;
}

export function rawStream(port: number, opts: { token?: string; creds?: grpc.ChannelCredentials } = {}): RawStream {
  const Ctor = grpc.makeGenericClientConstructor(xdsServiceDefinition(), 'AggregatedDiscovery');
  const client = new Ctor(`127.0.0.1:${port}`, opts.creds ?? grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  if (opts.token !== undefined) md.set('authorization', `Bearer ${opts.token}`);
  const call = (
    client as unknown as Record<string, (m: grpc.Metadata) => grpc.ClientDuplexStream<DeltaRequest, DeltaResponse>>
  )[METHOD_NAME]!.call(client, md);
  const responses: DeltaResponse[] = [];
  call.on('data', (r: DeltaResponse) => responses.push(r));
  call.on('error', () => undefined);
  const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
  return {
    responses,
    status,
    send: (req) => call.write(req),
    close: () => {
      call.cancel();
      client.close();
    },
  };
}

export function node(gateway = 'default/gw', pod = 'raw-0'): NodeMessage {
  const [gatewayNamespace = '', gatewayName = ''] = gateway.split('/');
  return { gatewayNamespace, gatewayName, podName: pod, buildVersion: 'test' };
}

export { createMemorySource };
