import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Proxies the tests start run one process unless a test asks for workers (`--workers 2`): the default,
    // one worker per CPU, would multiply xDS streams and ports every test counts. resolveWorkers is unit-tested.
    env: { GW_WORKERS: '1' },
    reporters: ['default'],
    // Two projects so the e2e API server (a globalSetup) starts only when e2e files are selected.
    // `include` is per project: `extends: true` concatenates arrays, it does not replace them.
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/e2e/**'] },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/support/global-setup.ts'],
          testTimeout: 120_000,
        },
      },
    ],
  },
});
