import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Test files of pure code (objects in, objects out: no listener, no env var, no process-wide registry) share
// their worker process: `isolate: false` imports the module graph once per worker instead of once per file,
// which is most of these files' cost. A file here must leave no global state behind (docs/testing.md).
const SHARED_WORKER = [
  'test/translate/**/*.test.ts',
  'test/deployer/**/*.test.ts',
  'test/api/**/*.test.ts',
  'test/coverage/**/*.test.ts',
  'test/chart/**/*.test.ts',
  'test/*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One worker per core. Vitest's own default for `run` is cores - 1, a single worker on the 2-core CI
    // machine, while most test time is waiting on sockets and child processes.
    maxWorkers: availableParallelism(),
    // Proxies the tests start run one process unless a test asks for workers (`--workers 2`): the default,
    // one worker per CPU, would multiply xDS streams and ports every test counts. resolveWorkers is unit-tested.
    // `make run`'s scripts wait 30 s for a process to be ready; a loaded CI machine can take longer to start one.
    env: { GW_WORKERS: '1', GW_RUN_READY_SECONDS: '120' },
    reporters: ['default'],
    // Three projects: the e2e API server (a globalSetup) starts only when e2e files are selected, and pure
    // files share a worker. `include` is per project: `extends: true` concatenates arrays, it does not replace them.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/e2e/**', ...SHARED_WORKER],
        },
      },
      {
        extends: true,
        test: { name: 'pure', include: SHARED_WORKER, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/support/global-setup.ts'],
          testTimeout: 120_000,
          // One file at a time: the files share one API server and some bound wall-clock time (leader
          // election's hand-over); two at a time failed two of those at load average 20 (docs/testing.md).
          maxWorkers: 1,
        },
      },
    ],
  },
});
