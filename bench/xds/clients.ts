// Worker half of the xDS benchmark: a share of the simulated proxies (raw-client.ts, or with
// kind "grpc" the real xDS client of src/xds/client.ts), on their own thread so the main thread's CPU
// and heap are the server's. Reports its own thread's CPU so the bench can say what the proxies cost.
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { createXdsClient } from '../../src/xds/client.js';
import { createRawClient } from './raw-client.js';
import { threadCpuMs } from './thread-cpu.js';

const { port, first, count, kind } = workerData as { port: number; first: number; count: number; kind: string };

const log = pino({ level: 'silent' });
const clients: Array<{ readonly ready: boolean; close(): void }> = [];
const heapBefore = process.memoryUsage().heapUsed;
for (let i = first; i < first + count; i++) {
  const pod = `proxy-${i}`;
  clients.push(
    kind === 'grpc'
      ? createXdsClient({
          address: `127.0.0.1:${port}`,
          gateway: 'bench/gw',
          podName: pod,
          log,
          apply: () => ({ errors: [] }),
        })
      : createRawClient(port, pod),
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
