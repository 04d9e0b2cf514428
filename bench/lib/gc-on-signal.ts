// Preloaded into the fleet benchmark's bridge with `--expose-gc --import` (bench/fleet.ts): SIGUSR2 runs a
// full garbage collection, so the RSS read after it is what the process holds, not garbage V8 has yet to
// collect (the same bridge's settled RSS moved a lot between runs with that garbage in it: bench/RESULTS.md).
// Bench-only: nothing in the product loads it.
process.on('SIGUSR2', () => (globalThis as { gc?: () => void }).gc?.());
