// Allocation profile of the bench proxy (BENCH_HEAPPROF=1): V8's sampling heap profiler, counting
// objects that young-generation GC already collected, since those are what the proxy churns per call.
// BENCH_HEAPPROF=promoted leaves those out: what is left survived a scavenge (promoted to the old
// generation, where only a full collection frees it), the allocations that drive GC pause time.
// Prints the top allocation sites to stderr when the process ends.
import { Session } from 'node:inspector/promises';

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}

export async function startAllocationProfile(): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.BENCH_HEAPPROF !== 'promoted',
  } as object);
  return async () => {
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: Node } };
    const sites = new Map<string, number>();
    let total = 0;
    const walk = (n: Node): void => {
      const f = n.callFrame;
      const key = `${f.functionName || '(anon)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/src\//, 'src/')}:${f.lineNumber + 1}`;
      sites.set(key, (sites.get(key) ?? 0) + n.selfSize);
      total += n.selfSize;
      for (const c of n.children) walk(c);
    };
    walk(profile.head);
    const top = [...sites].sort((a, b) => b[1] - a[1]).slice(0, 40);
    process.stderr.write(`allocations sampled: ${(total / 1e6).toFixed(1)} MB\n`);
    for (const [k, v] of top) process.stderr.write(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}\n`);
  };
}
