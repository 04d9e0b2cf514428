// `npm run soak` (not in CI; see bench/RESULTS.md): the soak of bench/soak-load.ts for SVC_SOAK_MINUTES
// (default 10), with SVC_SOAK_HOG=1 (one core kept busy) and SVC_SOAK_HOSTILE=1 (the abusive clients).
// `npm run soak -- --smoke` is CI's version: 60 seconds with the abusive clients, held to the gross bounds of
// bench/soak-bars.ts; it prints what missed first and exits 1.
import { renderTable, verdict } from './report.js';
import { soakRows } from './soak-bars.js';
import { runSoak, soakTable } from './soak-load.js';

const smoke = process.argv.includes('--smoke');
const report = await runSoak(
  smoke
    ? { minutes: 1, hostile: true }
    : {
        minutes: Number(process.env.SVC_SOAK_MINUTES ?? 10),
        hog: process.env.SVC_SOAK_HOG === '1',
        hostile: process.env.SVC_SOAK_HOSTILE === '1',
      },
);
const rows = soakRows(report, smoke ? 'smoke' : 'bench');
const missed = rows.filter((row) => !verdict(row));
if (missed.length) process.stdout.write(`soak: missed ${missed.map((row) => row.name).join('; ')}\n\n`);
process.stdout.write(`${soakTable(report)}\n\n${renderTable(rows)}\n`);
process.exitCode = missed.length && smoke ? 1 : 0;
