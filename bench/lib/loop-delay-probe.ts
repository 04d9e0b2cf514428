// Preloaded into a bench child with `--import` (bench/soak.ts): samples the process's event-loop delay every
// millisecond and, when the process exits, writes p50 / p99 / max in ms to SVC_LOOP_DELAY_FILE. The samples
// are whole timer intervals, so 1 ms is the floor. Bench-only: nothing in the product loads it.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.SVC_LOOP_DELAY_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  process.on('exit', () => {
    const ms = (nanoseconds: number) => Number((nanoseconds / 1e6).toFixed(2));
    writeFileSync(
      file,
      JSON.stringify({ p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) }),
    );
  });
}
