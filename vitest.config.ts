import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['protocol/**/*.test.ts', 'ship/**/*.test.ts', 'bridge/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
