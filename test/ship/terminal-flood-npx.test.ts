// A flood through `npx svc ship` as a browser connects (permessage-deflate offered): `cat` of 8 MB of coloured
// lines reaches the reconstructed screen whole, in frames paced by the coalescing interval rather than one per
// parse of the pane's output (the ship drew ~270 frames a second before, taking the cores from tmux and the
// program).
import { execFileSync } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useNpxShip } from '../helpers/npx-fleet.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';
import { tmuxSocketFor } from '../../ship/server.js';

const fleet = useNpxShip('flood', ['w1']);

/** `lines` lines of numbered text, each in a colour of its own (truecolor, 256 and the 8 basic ones in turn). */
function colouredLines(lines: number): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    const colour =
      i % 3 === 0
        ? `\x1b[3${i % 8}m`
        : i % 3 === 1
          ? `\x1b[38;5;${i % 256}m`
          : `\x1b[38;2;${i % 256};${(i * 7) % 256};${(i * 13) % 256}m`;
    out.push(
      `${colour}${String(i).padStart(8, '0')} alpha beta γάμμα delta 漢字 epsilon zeta eta theta\x1b[0m ${'-'.repeat(i % 30)}`,
    );
  }
  return `${out.join('\n')}\n`;
}

it('draws an 8 MB flood at most once per coalescing interval, and its last screen exactly', async () => {
  const file = join(fleet.root, 'flood.txt');
  writeFileSync(file, colouredLines(120_000));
  const terminal = await connectTerminal(terminalUrl(fleet.url, 'app', 'w1'), {
    cols: 100,
    rows: 30,
    perMessageDeflate: true,
  });
  await terminal.until((screen) => /[$#] ?$/m.test(screen.text()));
  // The spec's rule for terminals: deflate is negotiated when the client offers it.
  expect(terminal.socket.extensions).toContain('permessage-deflate');
  const framesBefore = terminal.frames.length;
  const started = performance.now();
  terminal.input(`cat ${file}; echo flood-$((6 * 7))\r`);
  await terminal.until((screen) => screen.text().includes('flood-42'), 60_000);
  const elapsedMs = performance.now() - started;
  // Counted, not timed at arrival: a busy test process receives frames in bunches however the ship paced
  // them. A flood gets a frame per 16 ms for its first 250 ms and one per 50 ms after; allowed on top, the
  // command line's echo and the end, and one restart of the flood after a pause of the machine (its level
  // then decays below the threshold, and the next 250 ms run at 16 ms again). Drawn after every parse that
  // followed a 2 ms gap, the same flood came as 55–64 frames in ~700 ms here, against a bound of 38.
  const frames = terminal.frames.length - framesBefore;
  expect(frames).toBeLessThanOrEqual(16 + Math.ceil(Math.max(0, elapsedMs - 250) / 50) + 12);
  const lines = terminal.screen
    .text()
    .split('\n')
    .map((line) => line.trimEnd());
  const done = lines.indexOf('flood-42');
  const words = 'alpha beta γάμμα delta 漢字 epsilon zeta eta theta';
  expect(lines.slice(done - 2, done)).toEqual([`00119999 ${words} ${'-'.repeat(29)}`, `00120000 ${words}`]);
  await terminal.close();
}, 90_000);

it("keeps tmux's own default history of 2,000 lines on the ship's server (10,000 cost tmux ~10 % on a flood)", () => {
  const socket = tmuxSocketFor(realpathSync(fleet.fleetDirectory));
  expect(
    execFileSync('tmux', ['-L', socket, 'show-options', '-gv', 'history-limit'], { encoding: 'utf8' }).trim(),
  ).toBe('2000');
});
