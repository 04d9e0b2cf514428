// Sessions that outlive the ship's container (issue #27): `npx svc session-holder` and `npx svc ship
// --session-holder`, each in a container of its own (helpers/container.ts: a cgroup stopped as the kubelet
// stops one, every process at once, a daemonized tmux server included). Without a holder, a ship's
// container stopped ends its sessions; with one, a new ship on the same fleet finds the workspace active,
// the same shell process, and the agent's ship URL the one it was given. Deleting the workspace reaps what
// its session left running (the holder's job: the panes' pids are not the ship's). The holder, stopped with
// SIGTERM, ends every session.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containersUnavailable, makeContainer, type Container } from '../helpers/container.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { startNpx, type NpxProcess } from '../helpers/npx.js';
import { until } from '../helpers/poll.js';
import { freePort } from '../helpers/ports.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';
import { killFleetTmux } from '../helpers/cli.js';

const unavailable = containersUnavailable();
if (unavailable) {
  if (process.env.CI === 'true') throw new Error(`CI=true but containers cannot be emulated here: ${unavailable}`);
  console.warn(`test/ship/session-holder-npx.test.ts: skipped: ${unavailable}`);
}

/** A process that runs (a zombie has ended: it only waits for its parent). */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

interface Started {
  process: NpxProcess;
  container: Container;
  url: string;
}

let root = '';
const running: Started[] = [];

async function startShip(
  fleetDirectory: string,
  flags: string[] = [],
  env: Record<string, string> = {},
): Promise<Started> {
  const container = makeContainer('ship');
  const port = await freePort();
  const process = startNpx(
    ['ship', '--port', String(port), '--name', 'node-1', '--fleet-directory', fleetDirectory, ...flags],
    { HOME: root, ...env },
    container,
  );
  const started = { process, container, url: `http://127.0.0.1:${port}` };
  running.push(started);
  await process.waitFor('ship listening', 90_000);
  return started;
}

async function startHolder(fleetDirectory: string): Promise<Started> {
  const container = makeContainer('holder');
  const process = startNpx(['session-holder', '--fleet-directory', fleetDirectory], { HOME: root }, container);
  const started = { process, container, url: '' };
  running.push(started);
  await process.waitFor('session holder running', 60_000);
  return started;
}

/** Creates and activates app/<name> from a fresh remote. */
async function activeWorkspace(ship: Started, name: string): Promise<void> {
  const remote = makeRemote(root, `remote-${Math.random().toString(36).slice(2, 8)}`);
  const created = await call(ship.url, 'POST', '/workspaces', {
    url: remote.url,
    repoName: 'app',
    name,
    branch: 'main',
  });
  expect(created.status).toBe(201);
  expect((await call(ship.url, 'POST', path('app', name, '/activate'))).status).toBe(200);
}

/** Runs `command` in the workspace's shell and returns what it printed between the markers. */
async function inShell(ship: Started, name: string, command: string): Promise<string> {
  // One terminal per session: the ship answers `exit 1` until the previous one's close has come through.
  const terminal = await until(
    async () => {
      const opened = await connectTerminal(terminalUrl(ship.url, 'app', name), {
        cols: 120,
        rows: 20,
        perMessageDeflate: true,
      });
      const prompt = await Promise.race([
        opened.until((screen) => /[$#] ?$/m.test(screen.text()), 20_000).then(() => true),
        opened.exit.then(() => false),
      ]);
      if (!prompt) await opened.close();
      return prompt && opened;
    },
    `a terminal on app/${name}`,
    20_000,
    200,
  );
  try {
    const marker = `m${Math.random().toString(36).slice(2, 8)}`;
    // The typed line splits the marker, so only the output matches it.
    terminal.input(`echo "${marker}""_[$(${command})]"\r`);
    let answer = '';
    await terminal.until((screen) => {
      answer = new RegExp(`${marker}_\\[([^\\]\\n]*)\\]`).exec(screen.text())?.[1] ?? '';
      return answer !== '';
    }, 20_000);
    return answer;
  } finally {
    await terminal.close();
  }
}

describe.skipIf(unavailable !== null)("sessions and the ship's container", () => {
  beforeAll(async () => {
    root = await makeTempRoot();
  });

  afterAll(async () => {
    for (const started of running) await started.container.kill().catch(() => undefined);
    for (const fleet of ['plain', 'held']) await killFleetTmux(join(root, fleet)).catch(() => undefined);
    if (root) await removeRoot(root);
  });

  it("without a holder, stopping the ship's container ends its sessions", async () => {
    const fleet = join(root, 'plain');
    const ship = await startShip(fleet);
    await activeWorkspace(ship, 'w1');
    const shell = Number(await inShell(ship, 'w1', 'echo $$'));
    expect(alive(shell)).toBe(true);

    await ship.container.kill();
    await until(async () => !alive(shell), "the shell to end with the ship's container");
    const again = await startShip(fleet);
    const workspace = await call<{ state: string }>(again.url, 'GET', path('app', 'w1'));
    expect(workspace.body.state).toBe('inactive');
    await again.container.kill();
  }, 180_000);

  it('with a holder, a new ship finds the workspace active with the same shell; a delete reaps what it left running', async () => {
    const fleet = join(root, 'held');
    const holder = await startHolder(fleet);
    const agentUrl = 'http://agents.example.internal:4700';
    const agentEnv = { SVC_SESSION_ENV: 'MODEL_KEY', MODEL_KEY: 'model-key-held', SVC_AGENT_HARNESS: 'codex' };
    const first = await startShip(fleet, ['--session-holder', '--session-url', agentUrl], agentEnv);
    await activeWorkspace(first, 'w1');
    const shell = Number(await inShell(first, 'w1', 'echo $$'));
    // A job the shell leaves behind, deaf to the SIGHUP tmux's kill-session brings.
    const job = Number(await inShell(first, 'w1', 'nohup sleep 1000 >/dev/null 2>&1 & echo $!'));
    expect(alive(job)).toBe(true);
    expect(await inShell(first, 'w1', 'echo $SVC_SHIP_URL')).toBe(agentUrl);
    expect(await inShell(first, 'w1', 'echo $MODEL_KEY')).toBe('model-key-held');
    // SVC_AGENT_HARNESS: the session wired its agent before the shell started, at the URL the ship gave it.
    const codexConfig = readFileSync(join(fleet, 'app', 'w1', '.codex', 'config.toml'), 'utf8');
    expect(codexConfig).toContain(`url = "${agentUrl}/workspaces/app/w1/mcp"`);

    // The ship's pod replaced (an upgrade): its container stopped, a new one started.
    await first.container.kill();
    expect(alive(shell)).toBe(true);
    const second = await startShip(fleet, ['--session-holder', '--session-url', agentUrl], agentEnv);
    const workspace = await call<{ state: string }>(second.url, 'GET', path('app', 'w1'));
    expect(workspace.status).toBe(200);
    expect(workspace.body.state).toBe('active');
    expect(Number(await inShell(second, 'w1', 'echo $$'))).toBe(shell);

    expect((await call(second.url, 'DELETE', path('app', 'w1'))).status).toBe(200);
    await until(
      async () => !alive(shell) && !alive(job),
      "the deleted workspace's shell and its left-behind job to end",
      15_000,
    );

    // The holder stopped deliberately: every session ends with it, and it exits cleanly.
    await activeWorkspace(second, 'w2');
    const other = Number(await inShell(second, 'w2', 'echo $$'));
    holder.process.signalGroup('SIGTERM');
    await holder.process.waitFor('session holder stopping: every session ends');
    // Everything the holder ran, its tmux server and the sessions' shells, ends by itself.
    await until(async () => holder.container.pids().length === 0, "the holder's container to empty on its own");
    expect(alive(other)).toBe(false);
    await until(
      async () => (await call<{ state: string }>(second.url, 'GET', path('app', 'w2'))).body.state === 'inactive',
      'w2 to be inactive',
    );
    // A ship whose holder is gone still stops at once on SIGTERM.
    second.process.signalGroup('SIGTERM');
    await second.process.waitFor('ship stopping');
    await until(async () => second.container.pids().length === 0, 'the ship to stop without its holder', 10_000);
  }, 240_000);
});
