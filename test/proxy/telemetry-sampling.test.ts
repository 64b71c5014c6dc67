// Trace sampling is configured the OpenTelemetry way, by the proxy's environment (`OTEL_TRACES_SAMPLER`,
// `OTEL_TRACES_SAMPLER_ARG`; the API has no sampling field): the default samples every trace the client's
// flag allows (parent-based always-on), `always_off` records nothing, a ratio records that share.
import { afterEach, describe, expect, it } from 'vitest';
import { OtlpExporters } from '../../src/proxy/telemetry/exporters.js';

// Nothing is exported: the URL is never reached within the test (spans are batched and dropped on close).
const url = 'http://127.0.0.1:9/v1/traces';

describe('trace sampling from the environment', () => {
  const saved = { sampler: process.env.OTEL_TRACES_SAMPLER, arg: process.env.OTEL_TRACES_SAMPLER_ARG };
  afterEach(() => {
    for (const [k, v] of [
      ['OTEL_TRACES_SAMPLER', saved.sampler],
      ['OTEL_TRACES_SAMPLER_ARG', saved.arg],
    ] as const)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  });

  const recorded = async (n: number): Promise<number> => {
    const exporters = new OtlpExporters();
    const tracer = exporters.tracer(url);
    let count = 0;
    for (let i = 0; i < n; i++) {
      const span = tracer.startSpan('request');
      if (span.isRecording()) count++;
      span.end();
    }
    await exporters.close();
    return count;
  };

  it('records every root span by default', async () => {
    delete process.env.OTEL_TRACES_SAMPLER;
    expect(await recorded(50)).toBe(50);
  });

  it('records none with always_off', async () => {
    process.env.OTEL_TRACES_SAMPLER = 'always_off';
    expect(await recorded(50)).toBe(0);
  });

  it('records about the given share with traceidratio', async () => {
    process.env.OTEL_TRACES_SAMPLER = 'traceidratio';
    process.env.OTEL_TRACES_SAMPLER_ARG = '0.5';
    const n = await recorded(2000);
    expect(n).toBeGreaterThan(800);
    expect(n).toBeLessThan(1200);
  });
});
