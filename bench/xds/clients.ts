// Worker half of the xDS benchmark: a share of the lightweight proxies, on their own thread so the
// main thread's CPU and heap are the server's. Reports its own thread's CPU so the bench can say
// what the simulated proxies cost.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { createXdsClient, type XdsClient } from '../../src/xds/client.js';

const { port, first, count } = workerData as { port: number; first: number; count: number };

/** CPU ms of this thread (utime + stime of /proc/thread-self/stat, Linux); NaN elsewhere. */
function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

const log = pino({ level: 'silent' });
const clients: XdsClient[] = [];
const heapBefore = process.memoryUsage().heapUsed;
for (let i = first; i < first + count; i++) {
  clients.push(
    createXdsClient({
      address: `127.0.0.1:${port}`,
      gateway: 'bench/gw',
      podName: `proxy-${i}`,
      log,
      apply: () => ({ errors: [] }),
    }),
  );
}
const poll = setInterval(() => {
  if (!clients.every((c) => c.ready)) return;
  clearInterval(poll);
  parentPort!.postMessage({ ready: true, heapDelta: process.memoryUsage().heapUsed - heapBefore });
}, 5);
parentPort!.on('message', (msg: { close?: boolean; cpu?: boolean }) => {
  if (msg.cpu) parentPort!.postMessage({ cpuMs: threadCpuMs() });
  if (!msg.close) return;
  for (const c of clients) c.close();
  parentPort!.postMessage({ closed: true });
});
