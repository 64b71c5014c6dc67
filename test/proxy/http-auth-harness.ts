// A real runtime (with the route security factory) serving translated GwPolicy auth cases to an echo upstream
// on 127.0.0.1; it records every log line and response body so tests can prove no credential leaks.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { rawRequest, startUpstream, type RawResponse } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests, type TrafficCase } from './traffic-manifests.js';

export interface AuthBench {
  /** Requests the upstream has seen. */
  hits(): number;
  /** JSON of the snapshot applied. */
  ir: string;
  logged: string[];
  bodies: string[];
  /** The runtime's Prometheus exposition. */
  metrics(): Promise<string>;
  get(path: string, headers?: Record<string, string>): Promise<RawResponse>;
  /** Applies the same manifests again, translated anew (a snapshot with equal content). */
  reapply(): Promise<void>;
  post(path: string, headers: Record<string, string>, body: string): Promise<RawResponse>;
  close(): Promise<void>;
}

/** What the echo upstream saw of a forwarded request. */
export const seen = (res: RawResponse): { url: string; headers: Record<string, string> } =>
  JSON.parse(res.body) as { url: string; headers: Record<string, string> };

export async function startAuthBench(
  cases: TrafficCase[],
  extra = '',
  /** `clock`: the runtime's (rate limits, caches); `authClock`: the route security's (token and key expiry). */
  opts: { clock?: () => number; authClock?: () => number } = {},
): Promise<AuthBench> {
  let hits = 0;
  const logged: string[] = [];
  const bodies: string[] = [];
  const upstream = await startUpstream((req, res) => {
    hits++;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ url: req.url, headers: req.headers }));
  });
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  const runtime = new ProxyRuntime({
    log: pino({ level: 'debug' }, sink),
    security: createRouteSecurity(opts.authClock ? { now: opts.authClock } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const manifests = trafficManifests(upstream.port, cases, extra);
  const snapshot = translatedIr(manifests);
  await runtime.apply(snapshot);
  const base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  const send = async (
    path: string,
    o: { method?: string; headers?: Record<string, string>; body?: string },
  ): Promise<RawResponse> => {
    const res = await rawRequest(`${base}${path}`, o);
    bodies.push(res.body);
    return res;
  };
  return {
    hits: () => hits,
    ir: JSON.stringify(snapshot),
    logged,
    bodies,
    metrics: () => runtime.metrics.registry.metrics(),
    get: (path, headers = {}) => send(path, { headers }),
    reapply: () => runtime.apply(translatedIr(manifests)),
    post: (path, headers, body) => send(path, { method: 'POST', headers, body }),
    close: async () => {
      await runtime.close();
      await upstream.close();
    },
  };
}
