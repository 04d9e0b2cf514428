// The soak's bars as benchmark rows: the full bars `npm run bench` holds a 2-minute hostile soak to (issue
// #33's table), and the gross bounds of CI's 60-second smoke soak, which a loaded CI machine meets ten times
// over when nothing is wrong and which only a regression of the kind #33 found (echo in the hundreds of
// milliseconds, events lost or reordered, an event loop stalled) breaks.
import { percentile } from './lib/load.js';
import type { BenchRow } from './report.js';
import type { SoakReport } from './soak-load.js';

export type SoakBars = 'bench' | 'smoke';

const LIMITS: Record<SoakBars, { echoP99: number; loopP99: number }> = {
  bench: { echoP99: 50, loopP99: 20 },
  smoke: { echoP99: 250, loopP99: 100 },
};

export function soakRows(report: SoakReport, bars: SoakBars): BenchRow[] {
  const limits = LIMITS[bars];
  const label = `soak ${report.options.minutes} min${report.options.hostile ? ', abusive clients' : ''}`;
  const delivered = report.eventsExpected ? (report.eventsDelivered / report.eventsExpected) * 100 : 0;
  const rows: BenchRow[] = [
    {
      name: `${label}: probe echo through the bridge p99`,
      value: percentile(report.echo, 99),
      unit: 'ms',
      absoluteLimit: limits.echoP99,
    },
    {
      name: `${label}: probe echo straight to the ship p99`,
      value: percentile(report.directEcho, 99),
      unit: 'ms',
      absoluteLimit: limits.echoP99,
    },
    {
      name: `${label}: events delivered of those posted`,
      value: delivered,
      unit: '%',
      absoluteLimit: 100,
      higherIsBetter: true,
    },
    { name: `${label}: events out of order`, value: report.eventsOutOfOrder, unit: '', absoluteLimit: 0 },
    { name: `${label}: status posts that failed`, value: report.ticksFailed, unit: '', absoluteLimit: 0 },
    { name: `${label}: unexpected closes`, value: report.unexpectedCloses, unit: '', absoluteLimit: 0 },
    // A server that did not exit cleanly reported nothing: that fails its row.
    {
      name: `${label}: ship event-loop delay p99`,
      value: report.shipLoop?.p99 ?? Infinity,
      unit: 'ms',
      absoluteLimit: limits.loopP99,
    },
    {
      name: `${label}: bridge event-loop delay p99`,
      value: report.bridgeLoop?.p99 ?? Infinity,
      unit: 'ms',
      absoluteLimit: limits.loopP99,
    },
  ];
  if (bars === 'bench') {
    rows.push({
      name: `${label}: routed GET p99 at 100 req/s`,
      value: percentile(report.routed, 99),
      unit: 'ms',
      absoluteLimit: 50,
    });
  }
  return rows;
}
