import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'protocol/**/*.test.ts',
      'server/**/*.test.ts',
      'ship/**/*.test.ts',
      'bridge/**/*.test.ts',
      'cli/**/*.test.ts',
      'operator/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    // Fault tests stop shared services (the machine's PostgreSQL): they run alone, `npm run test:faults`.
    exclude: ['test/faults/**', 'test/serial/**', '**/node_modules/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
