// What the soak's load costs a real `npx svc ship` (issue #33), counted on the ship's own metrics rather than
// timed: status reads of an active workspace nobody touched run no git (before, each read ran `git diff` and
// `git rev-list`: 200 processes a second under the soak's 100 reads a second), an edit is still seen by the
// very next read, and a terminal client asking for a snapshot a thousand times a second gets at most ten a
// second (before, one per 16 ms frame interval). The terminal offers permessage-deflate, as browsers do.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { sample } from '../helpers/metrics.js';
import { useNpxShip } from '../helpers/npx-fleet.js';
import { call, path, rawCall } from '../helpers/ship.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';

const fleet = useNpxShip('load', ['status', 'term']);

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const reply = await rawCall(fleet.url, 'GET', '/metrics');
  expect(reply.status).toBe(200);
  return sample(reply.text, name, labels) ?? 0;
}

const gitRuns = async () => {
  let total = 0;
  for (const command of ['diff', 'rev-list', 'ls-files'])
    total += await metric('svc_ship_git_spawns_total', { command, result: 'ok' });
  return total;
};

it('reads the status of an untouched active workspace without running git, and sees an edit at once', async () => {
  const read = async () => {
    const reply = await call(fleet.url, 'GET', path('app', 'status'));
    expect(reply.status).toBe(200);
    return reply.body.diff as unknown;
  };
  await read();
  // The clone's files are only trusted by their timestamps once those are older than the stamps' 2 s margin
  // (ship/workspaces/worktree-stamp.ts): until then every read runs git, as it must.
  await new Promise((resolve) => setTimeout(resolve, 2100));
  await read();
  const before = await gitRuns();
  for (let i = 0; i < 50; i++) expect(await read()).toEqual({ added: 0, removed: 0, commits: 0 });
  expect(await gitRuns()).toBe(before);

  writeFileSync(join(fleet.fleetDirectory, 'app', 'status', 'README.md'), '# fixture\nmore\n');
  expect(await read()).toEqual({ added: 1, removed: 0, commits: 0 });
  expect(await gitRuns()).toBe(before + 1);
}, 30_000);

it('sends a client that asks for snapshots a thousand times a second at most ten a second', async () => {
  const terminal = await connectTerminal(terminalUrl(fleet.url, 'app', 'term'), {
    cols: 80,
    rows: 24,
    perMessageDeflate: true,
  });
  await terminal.until((screen) => /[$#] ?$/m.test(screen.text()));
  expect(terminal.socket.extensions).toContain('permessage-deflate');
  const gridsBefore = terminal.frames.filter((frame) => frame.type === 'grid').length;
  const started = performance.now();
  for (let i = 0; i < 1000; i++) {
    terminal.send({ type: 'resync' });
    // Pacing: ten resyncs, then a turn for the socket, so the load is a stream and not one burst.
    if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const elapsedMs = performance.now() - started;
  // Let the last snapshot asked for arrive, then count.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const grids = terminal.frames.filter((frame) => frame.type === 'grid').length - gridsBefore;
  expect(grids).toBeGreaterThan(0);
  expect(grids).toBeLessThanOrEqual(Math.ceil((elapsedMs + 300) / 100) + 1);
  expect(await metric('svc_ship_terminal_resyncs_total')).toBe(1000);
  await terminal.close();
}, 30_000);
