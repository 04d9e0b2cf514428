// A ship's CPU, memory and load as bars (issue #31) beside the numbers, in three table cells, shared by the
// ships and resources pages. Native <meter> elements: a bar with a value a screen reader reads, coloured
// by the browser from low/high/optimum, and no inline style (the CSP forbids it). Load is drawn per core
// (a 1-minute load equal to the core count fills the bar). An offline ship, or one whose sample failed,
// gets one cell saying so. Each cell names its column (data-label) for the phone layout, where the table's
// header is hidden (styles.css).
import type { ShipSystemResources } from '../../../protocol/bridge.js';
import { Text } from './text.js';

const percent = (fraction: number) => `${(fraction * 100).toFixed(0)}%`;
const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

/** Why a ship has no figures to show. */
function missing(entry: ShipSystemResources | undefined): string {
  if (!entry) return 'waiting for the first sample…';
  if (entry.error) return `unavailable: ${entry.error}`;
  return entry.status === 'offline' ? 'offline: no data' : 'no data';
}

function Bar({ label, value, max = 1 }: { label: string; value: number; max?: number }) {
  return (
    <meter
      aria-label={label}
      min={0}
      max={max}
      low={max * 0.7}
      high={max * 0.9}
      optimum={0}
      value={Math.min(Math.max(value, 0), max)}
    />
  );
}

/** `offline`: the caller knows the ship is offline (the ships page's fresher status), whatever `entry` holds. */
export function ResourceCells({
  ship,
  entry,
  offline = false,
}: {
  ship: string;
  entry: ShipSystemResources | undefined;
  offline?: boolean;
}) {
  const resources = offline ? null : entry?.resources;
  if (!resources) {
    const why = offline ? 'offline: no data' : missing(entry);
    return (
      <td colSpan={3} className="muted no-resources">
        <Text value={why} />
      </td>
    );
  }
  const { cpu, memory } = resources;
  const [load1, load5, load15] = cpu.loadAverage;
  return (
    <>
      <td className="resource cpu" data-label="CPU">
        <Bar label={`CPU of ${ship}`} value={cpu.usage} />
        <span className="figure">
          {percent(cpu.usage)} of {cpu.cores} cores
        </span>
      </td>
      <td className="resource memory" data-label="Memory">
        <Bar label={`Memory of ${ship}`} value={memory.usage} />
        <span className="figure">
          {gib(memory.used)} / {gib(memory.total)} ({percent(memory.usage)})
        </span>
      </td>
      <td className="resource load" data-label="Load">
        <Bar label={`Load of ${ship} per core`} value={load1} max={Math.max(cpu.cores, 1)} />
        <span className="figure" title="load average over 1, 5 and 15 minutes">
          {load1.toFixed(2)}, {load5.toFixed(2)}, {load15.toFixed(2)}
        </span>
      </td>
    </>
  );
}
