// The fault suite (`npm run test:faults`): kills, restarts and outages of real processes and services, one
// file at a time because they stop things other tests would share (the machine's PostgreSQL). The serial
// tests run here too: they take fixed ports (the README's examples use 4700 and 4800).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts', 'test/serial/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
