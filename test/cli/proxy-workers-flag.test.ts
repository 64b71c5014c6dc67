// `--workers` / GW_WORKERS: every CPU unless told otherwise (`auto`), and clear errors for bad values.
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { WORKER_SEMI_SPACE_MIB, resolveWorkers, workerExecArgv } from '../../src/cli/proxy-workers.js';

describe('resolveWorkers', () => {
  it('runs one worker per available CPU when neither the flag nor GW_WORKERS is set', () => {
    expect(resolveWorkers(undefined, {})).toBe(availableParallelism());
    expect(resolveWorkers(undefined, { GW_WORKERS: '' })).toBe(availableParallelism());
  });
  it('takes the flag over GW_WORKERS, and auto as the CPUs available', () => {
    expect(resolveWorkers('3', { GW_WORKERS: '5' })).toBe(3);
    expect(resolveWorkers(undefined, { GW_WORKERS: '5' })).toBe(5);
    expect(resolveWorkers('auto', {})).toBe(availableParallelism());
  });
  it('refuses anything but auto or 1 to 1024, quoting what it got', () => {
    for (const bad of ['0', '-1', '1.5', 'two', '1025'])
      expect(() => resolveWorkers(bad, {})).toThrow(`got ${JSON.stringify(bad)}`);
  });
});

describe('workerExecArgv', () => {
  const small = [`--min-semi-space-size=${WORKER_SEMI_SPACE_MIB}`, `--max-semi-space-size=${WORKER_SEMI_SPACE_MIB}`];
  it("keeps the primary's flags and adds the workers' smaller young generation, at its full size from the start", () => {
    expect(workerExecArgv(['--import', 'tsx'])).toEqual(['--import', 'tsx', ...small]);
    expect(workerExecArgv([], '--enable-source-maps')).toEqual(small);
  });
  it('leaves the semi-space size to the user who set one, as a flag or in NODE_OPTIONS', () => {
    expect(workerExecArgv(['--max-semi-space-size=16'])).toEqual(['--max-semi-space-size=16']);
    expect(workerExecArgv(['--min_semi_space_size', '8'])).toEqual(['--min_semi_space_size', '8']);
    expect(workerExecArgv([], '--enable-source-maps --max-semi-space-size=32')).toEqual([]);
  });
});
