// `npm run bench`: runs every benchmark in turn and prints one table of ratios. Exits 1 when a target is
// missed, so a regression is visible, but it is never part of `npm test`.
import { benchShipWorkspaces } from './ship-workspaces.js';
import { benchTerminal } from './terminal.js';
import { benchBridge } from './bridge.js';
import { benchCliStartup } from './cli-startup.js';
import { benchStatusLoad } from './status-load.js';
import { benchMcp } from './mcp.js';
import { benchSweep } from './sweep.js';
import { renderTable, verdict, type BenchRow } from './report.js';

// `npm run bench -- terminal` runs one group; no argument runs all.
const groups: Record<string, () => Promise<BenchRow[]>> = {
  workspaces: benchShipWorkspaces,
  terminal: benchTerminal,
  bridge: benchBridge,
  cli: benchCliStartup,
  status: benchStatusLoad,
  mcp: benchMcp,
  sweep: benchSweep,
};
groups.fleet = async () => (await import('./fleet.js')).benchFleet();
groups.operator = async () => (await import('./operator.js')).benchOperator();
groups.start = async () => (await import('./first-start.js')).benchFirstStart();
// The GUI against 5 fake ships × 200 workspaces in Chromium (issue #28).
// Fan-out through the ship's repo cache against plain clones from a slowed forge (issue #29).
groups.fanout = async () => (await import('./fanout.js')).benchFanout();
groups.gui = async () => (await import('./gui.js')).benchGui();
// The terminal end to end (issue #31): keystroke echo against an attached tmux client, the GUI's `cat` against `svc client attach`.
groups['terminal-e2e'] = async () => (await import('./terminal-e2e.js')).benchTerminalE2e();
// A healthy ship's routed calls beside a ship streaming over a 64 KB/s link (docs/security.md X6).
groups['slow-link'] = async () => (await import('./slow-link.js')).benchSlowLink();
// Two minutes of the soak with the abusive clients, held to its full bars (bench/soak-bars.ts).
groups.soak = async () => {
  const [{ runSoak }, { soakRows }] = await Promise.all([import('./soak-load.js'), import('./soak-bars.js')]);
  return soakRows(await runSoak({ minutes: 2, hostile: true }), 'bench');
};
const chosen = process.argv.slice(2).filter((name) => name in groups);
const rows: BenchRow[] = [];
for (const name of chosen.length ? chosen : Object.keys(groups)) rows.push(...(await groups[name]!()));
// What missed comes first, above a table that can be long.
const missed = rows.filter((row) => !verdict(row));
if (missed.length) process.stdout.write(`missed: ${missed.map((row) => row.name).join('; ')}\n\n`);
process.stdout.write(`${renderTable(rows)}\n`);
process.exitCode = missed.length ? 1 : 0;
