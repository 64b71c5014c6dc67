// Worker half of the xDS benchmark: the lightweight proxies, on their own thread so the main thread's
// CPU and heap are the server's alone.
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { createXdsClient, type XdsClient } from '../../src/xds/client.js';

const { port, count } = workerData as { port: number; count: number };
const log = pino({ level: 'silent' });
const clients: XdsClient[] = [];
const heapBefore = process.memoryUsage().heapUsed;
for (let i = 0; i < count; i++) {
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
parentPort!.on('message', (msg: { close?: boolean }) => {
  if (!msg.close) return;
  for (const c of clients) c.close();
  parentPort!.postMessage({ closed: true });
});
