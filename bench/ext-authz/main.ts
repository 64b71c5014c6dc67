// gRPC ext_authz benchmark (issue 36): per forwarded request, the CPU and the latency a gRPC ext_authz round
// trip to a local Open Policy Agent (test/opa, `make opa`) adds, as ratios to the same route without it in the
// same run. Proxy, client and upstream share this process (their CPU is measured together, so the fixed work is
// in both figures); OPA's own CPU comes from /proc. Rounds alternate so drift on the shared machine hits each alike.
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';
import { OpaServer } from '../../test/proxy/auth/opa-server.js';
import { countedRounds, getter, printCountedRounds, type CountedRoundsOptions } from '../lib/rounds.js';

const REQUESTS = 2000;
const CONCURRENCY = 8;
const SEQUENTIAL = 300;
const ROUNDS = 3;

const upstream = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamPort = (upstream.address() as AddressInfo).port;
const opa = await OpaServer.start();
const runtime = new ProxyRuntime({ log: pino({ level: 'info' }, new Writable({ write: (_c, _e, done) => done() })) });
await runtime.apply(
  translatedIr(
    trafficManifests(upstreamPort, [
      { name: 'plain', traffic: '{}' },
      // /public is a path the test policy allows for anyone (test/proxy/auth/testdata/ext-authz.rego).
      { name: 'public', traffic: `{extAuth: {url: "grpc://127.0.0.1:${opa.port}", grpc: {}}}` },
    ]),
  ),
);
const port = Object.values(runtime.boundPorts())[0] as number;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

const rounds: CountedRoundsOptions = {
  sides: { 'without ext_authz': '/plain', 'gRPC ext_authz (OPA)': '/public' },
  get: getter(port, agent),
  helperPid: opa.pid,
  requests: REQUESTS,
  concurrency: CONCURRENCY,
  sequential: SEQUENTIAL,
  rounds: ROUNDS,
};
printCountedRounds(rounds, await countedRounds(rounds), {
  title: 'gRPC ext_authz to a local OPA',
  baseline: 'without ext_authz',
  versus: 'ratio',
  helper: 'OPA',
  pad: 22,
});
agent.destroy();
await runtime.close();
await opa.stop();
upstream.close();
