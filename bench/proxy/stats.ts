// Percentiles and per-phase summaries for the proxy bench.
export interface Sample {
  latencies: number[];
  elapsed: number;
  dropped: number;
}
export interface Result {
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  n: number;
  dropped: number;
  /** Seconds the samples took together. */
  elapsed: number;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export function summarize(samples: Sample[]): Result {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const elapsed = samples.reduce((t, s) => t + s.elapsed, 0);
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    p999: percentile(latencies, 99.9),
    n: latencies.length,
    dropped: samples.reduce((t, s) => t + s.dropped, 0),
    elapsed,
  };
}
