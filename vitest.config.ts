import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          // The SDK's own tests (sdk/test) run in the same projects: its scenario shares the one local stack.
          include: ['test/unit/**/*.test.ts', 'sdk/test/unit/**/*.test.ts'],
          environment: 'node',
          // No network in unit tests: these names only satisfy module-scope configuration.
          env: {
            TABLE_NAME: 'unit-table',
            BUCKET_NAME: 'unit-bucket',
            POWERTOOLS_LOG_LEVEL: 'SILENT',
            POWERTOOLS_METRICS_DISABLED: 'true',
            // Not on Lambda: no X-Ray async-hooks context (see functions/local/stack.ts).
            AWS_XRAY_MANUAL_MODE: 'true',
          },
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          environment: 'node',
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'sdk/test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          // Tests that import runtime modules run them outside Lambda, like the local stack.
          env: { AWS_XRAY_MANUAL_MODE: 'true', POWERTOOLS_METRICS_DISABLED: 'true' },
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
