// The session holder's drain scan with `--session-user` (issue #30, docs/security.md H24): the workspaces
// belong to the session user, and git run as the holder (root here) refuses another owner's repository, so
// reportDrain runs the scan's git as that user and finds the unpushed work instead of a scan error. A real
// uid switch: tests run as root here, as in session-user-npx.test.ts.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { reportDrain } from '../../ship/sessions/drain-report.js';
import { handOver, parseSessionUser } from '../../ship/sessions/session-user.js';
import { git, makeRemote } from '../helpers/git-fixtures.js';
import { removeRoot } from '../helpers/ship.js';

const user = parseSessionUser('10002:10002', []);
const logger = pino({ level: 'silent' });
let root = '';
let fleet = '';

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('this test switches users: it runs as root');
  // Outside the run's own 0700 temp directory: the session user reaches the workspace by path through this.
  root = await mkdtemp('/tmp/svc-drain-user-');
  chmodSync(root, 0o711);
  fleet = join(root, 'fleet');
  mkdirSync(join(fleet, 'app'), { recursive: true, mode: 0o711 });
  chmodSync(fleet, 0o711);
  const remote = makeRemote(root, 'app');
  const workspace = join(fleet, 'app', 'w1');
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', remote.url, workspace]);
  writeFileSync(join(workspace, 'local.txt'), 'a local commit\n');
  git(workspace, 'add', '.');
  git(workspace, 'commit', '--quiet', '-m', 'local');
  writeFileSync(join(workspace, 'README.md'), 'changed\n');
  // As the ship leaves a workspace under --session-user: every entry the user's.
  await handOver(workspace, user);
});

afterAll(async () => {
  await removeRoot(root);
});

it("finds the session user's unpushed work: git runs as that user, so its ownership check passes", async () => {
  const report = await reportDrain({ fleetDirectory: fleet, timeoutMs: 20_000, logger, sessionUser: user });
  expect(report.scanned).toBe(1);
  expect(report.workspaces).toEqual([
    {
      repo: 'app',
      name: 'w1',
      unpushedBranches: [{ branch: 'main', commits: 1 }],
      uncommittedFiles: 1,
      untrackedFiles: 0,
      stashes: 0,
    },
  ]);
}, 30_000);

it("as the holder (no session user) git refuses the user's workspace: reported as not scanned, never as clean", async () => {
  const report = await reportDrain({ fleetDirectory: fleet, timeoutMs: 20_000, logger });
  expect(report.workspaces).toHaveLength(1);
  expect(report.workspaces[0]!.scanError).toMatch(/dubious ownership/);
}, 30_000);
