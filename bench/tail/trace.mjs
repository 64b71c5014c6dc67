// Tail tracer, preloaded into every process of a bench run (`node --import bench/tail/trace.mjs`; workers
// inherit it through the primary's execArgv): records, on the monotonic clock every process shares
// (CLOCK_MONOTONIC, milliseconds), GC pauses, event-loop stalls, each HTTP request a server handled
// (arrival and finish, with the bench's x-bench-id header), inbound connections and upstream (undici)
// connection opens and closes. Written as JSON lines to $TAIL_TRACE_DIR/<pid>.jsonl when the process exits.
// Nothing in the product: bench/tail/main.ts reads the files and lines slow calls up with these events.
import { AsyncLocalStorage } from 'node:async_hooks';
import cluster from 'node:cluster';
import dc from 'node:diagnostics_channel';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const dir = process.env.TAIL_TRACE_DIR;
if (dir) {
  const lagEveryMs = Number(process.env.TAIL_TRACE_LAG_MS ?? 5);
  const mono = () => Number(process.hrtime.bigint()) / 1e6;
  const perfToMono = mono() - performance.now();
  const events = [];
  const role = cluster.isWorker ? 'worker' : process.argv.slice(2, 4).join(' ');
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      events.push({ k: 'gc', t: e.startTime + perfToMono, d: e.duration, g: e.detail?.kind ?? e.kind });
  }).observe({ entryTypes: ['gc'] });
  // A timer that records how late it fires: a stall (GC, a long task, a wait for a CPU) shows as lateness.
  // With the CPU the process used meanwhile (all its threads), a stall tells its own work (busy) from a wait
  // for a core (the machine's load).
  let due = mono() + lagEveryMs;
  let cpu = process.cpuUsage();
  setInterval(() => {
    const now = mono();
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    if (now - due > 2) events.push({ k: 'lag', t: due, d: now - due, cpu: (used.user + used.system) / 1000 });
    due = now + lagEveryMs;
  }, lagEveryMs).unref();
  // A request's record rides its async context, so the upstream request it makes (undici) is timed in it:
  // u0 created, u1 response headers, u2 done, up: the upstream connection (pid-less: its local port).
  const als = new AsyncLocalStorage();
  const open = new WeakMap();
  const upstream = new WeakMap();
  dc.subscribe('http.server.request.start', ({ request }) => {
    const s = request.socket;
    s.__tailId ??= `${process.pid}:${s.remotePort}`;
    const r = { k: 'req', t: mono(), id: request.headers['x-bench-id'], c: s.__tailId };
    open.set(request, r);
    als.enterWith(r);
  });
  dc.subscribe('http.server.response.finish', ({ request }) => {
    const r = open.get(request);
    if (!r) return;
    r.e = mono();
    events.push(r);
  });
  dc.subscribe('undici:request:create', ({ request }) => {
    const r = als.getStore();
    if (!r || r.u0 !== undefined) return;
    r.u0 = mono();
    upstream.set(request, r);
  });
  dc.subscribe('undici:client:sendHeaders', ({ request, socket }) => {
    const r = upstream.get(request);
    if (r) r.up = socket.localPort;
  });
  dc.subscribe('undici:request:headers', ({ request }) => {
    const r = upstream.get(request);
    if (r) r.u1 = mono();
  });
  dc.subscribe('undici:request:trailers', ({ request }) => {
    const r = upstream.get(request);
    if (r) r.u2 = mono();
  });
  dc.subscribe('net.server.socket', ({ socket }) => {
    const port = socket.remotePort;
    events.push({ k: 'conn', t: mono(), p: port });
    socket.once('close', () => events.push({ k: 'conn-close', t: mono(), p: port }));
  });
  dc.subscribe('undici:client:beforeConnect', () => events.push({ k: 'up-dial', t: mono() }));
  dc.subscribe('undici:client:connected', ({ socket }) => {
    const port = socket.localPort;
    events.push({ k: 'up-conn', t: mono(), p: port });
    socket.once('close', () => events.push({ k: 'up-close', t: mono(), p: port }));
  });
  process.once('exit', () => {
    mkdirSync(dir, { recursive: true });
    const head = JSON.stringify({
      k: 'proc',
      pid: process.pid,
      ppid: process.ppid,
      role,
      argv: process.argv.slice(1, 4),
    });
    writeFileSync(path.join(dir, `${process.pid}.jsonl`), [head, ...events.map((e) => JSON.stringify(e))].join('\n'));
  });
  // SIGTERM without a handler skips 'exit': write then, unless the process handles SIGTERM itself (gw does).
  if (process.env.TAIL_TRACE_SIGTERM === '1') process.once('SIGTERM', () => process.exit(143));
}
