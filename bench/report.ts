// Benchmark rows and their table: each row is a measurement, the reference measured in the same run, their
// ratio, and the target it is held to (a ratio, an absolute limit, or both).
import os from 'node:os';

export interface BenchRow {
  name: string;
  value: number;
  reference?: number;
  unit: string;
  /** Highest acceptable value/reference (lowest when higherIsBetter). */
  target?: number;
  /** Absolute bound on `value`: a maximum, or a minimum when higherIsBetter. */
  absoluteLimit?: number;
  higherIsBetter?: boolean;
}

export function verdict(row: BenchRow): boolean {
  const ratio = row.reference ? row.value / row.reference : undefined;
  const ratioOk =
    row.target === undefined ||
    ratio === undefined ||
    (row.higherIsBetter ? ratio >= 1 / row.target : ratio <= row.target);
  const absoluteOk =
    row.absoluteLimit === undefined ||
    (row.higherIsBetter ? row.value >= row.absoluteLimit : row.value <= row.absoluteLimit);
  return ratioOk && absoluteOk;
}

const fixed = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));

export function renderTable(rows: BenchRow[]): string {
  const lines = [
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
    '',
    '| benchmark | svc | reference | ratio | target | ok |',
    '|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const ratio = row.reference ? row.value / row.reference : undefined;
    const target = [
      row.target !== undefined ? (row.higherIsBetter ? `≥ ${fixed(1 / row.target)}×` : `≤ ${row.target}×`) : '',
      row.absoluteLimit !== undefined ? `${row.higherIsBetter ? '≥' : '≤'} ${row.absoluteLimit} ${row.unit}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(
      `| ${row.name} | ${fixed(row.value)} ${row.unit} | ${row.reference !== undefined ? `${fixed(row.reference)} ${row.unit}` : '–'} | ${
        ratio !== undefined ? `${ratio.toFixed(2)}×` : '–'
      } | ${target || '–'} | ${verdict(row) ? 'yes' : 'NO'} |`,
    );
  }
  return lines.join('\n');
}
