// `npm run bench`: runs every benchmark in turn and prints one table of ratios. Exits 1 when a target is
// missed, so a regression is visible, but it is never part of `npm test`.
import { benchShipWorkspaces } from './ship-workspaces.js';
import { renderTable, verdict, type BenchRow } from './report.js';

const rows: BenchRow[] = [];
rows.push(...(await benchShipWorkspaces()));
process.stdout.write(`${renderTable(rows)}\n`);
process.exitCode = rows.every(verdict) ? 0 : 1;
