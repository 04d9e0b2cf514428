// Durations on the command line, written as Kubernetes users write them: `10m`, `90s`, `1h30m`, `500ms`,
// and days (`14d`) for what lasts that long; `0` turns the thing off.
import { InvalidArgumentError } from 'commander';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(value: string): number {
  const text = value.trim();
  if (text === '0') return 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) {
    throw new InvalidArgumentError('must be a duration such as 10m, 90s, 1h30m or 14d');
  }
  return Math.round(parts.reduce((total, part) => total + Number(part[1]) * UNITS[part[2]!]!, 0));
}
