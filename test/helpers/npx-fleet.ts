// A fleet the way a new user runs one: `npx svc bridge` with authentication (the first admin from the
// environment) and one `npx svc ship`, both real processes, set up over HTTP only (login, ship and repo
// registration). CLI tests then drive `svc client` against it with the admin's session in SVC_TOKEN.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { killFleetTmux } from './cli.js';
import { makeRemote } from './git-fixtures.js';
import { bridgeUrlIn, startNpx, type NpxProcess } from './npx.js';
import { freePort } from './ports.js';
import { call, makeTempRoot, path, removeRoot } from './ship.js';

export const FLEET_ADMIN = { username: 'firsthour', email: 'firsthour@example.com', password: 'first-hour-password-1' };

export interface NpxFleet {
  bridgeUrl: string;
  shipUrl: string;
  fleetDirectory: string;
  /** The admin's session token. */
  token: string;
  /** Environment for `svc client` runs: the session, a private config directory, no colour. */
  env: Record<string, string>;
  /** The bridge stopped the way a supervisor stops it (SIGTERM to its group, SIGKILL after the grace). */
  stopBridge(): Promise<void>;
  /** The bridge started again on the same port and data directory, as a supervisor restarts it. */
  startBridge(): Promise<void>;
  stop(): Promise<void>;
}

/** Extra environment for the two processes (a forge's API URL for the bridge, a HOME for the ship). */
export interface NpxFleetEnv {
  bridge?: Record<string, string>;
  ship?: Record<string, string>;
}

/** Starts the bridge and ship `ship` under `root`, registers the ship and `repos` (name → clone URL). */
export async function startNpxFleet(
  root: string,
  ship: string,
  repos: Record<string, string>,
  env: NpxFleetEnv = {},
): Promise<NpxFleet> {
  const fleetDirectory = join(root, `fleet-${ship}`);
  const started: NpxProcess[] = [];
  const stop = async () => {
    for (const process of started) await process.terminateThenKill();
    await killFleetTmux(fleetDirectory).catch(() => undefined);
  };
  try {
    const bridgeArgs = (port: string) => ['bridge', '--port', port, '--data-directory', join(root, 'bridge-data')];
    const bridgeEnv = {
      SVC_BRIDGE_ADMIN_USER: FLEET_ADMIN.username,
      SVC_BRIDGE_ADMIN_EMAIL: FLEET_ADMIN.email,
      SVC_BRIDGE_ADMIN_PASSWORD: FLEET_ADMIN.password,
      ...env.bridge,
    };
    let bridge = startNpx(bridgeArgs('0'), bridgeEnv);
    started.push(bridge);
    const shipProcess = startNpx(
      ['ship', '--port', '0', '--name', ship, '--fleet-directory', fleetDirectory],
      env.ship,
    );
    started.push(shipProcess);
    await Promise.all([bridge.waitFor('bridge listening on', 60_000), shipProcess.waitFor('ship listening', 60_000)]);
    const bridgeUrl = bridgeUrlIn(bridge.output());
    const { port } = JSON.parse(readFileSync(join(fleetDirectory, 'atlas.json'), 'utf8')) as { port: number };
    const shipUrl = `http://localhost:${port}`;
    const login = await call(bridgeUrl, 'POST', '/auth/login', {
      username: FLEET_ADMIN.username,
      password: FLEET_ADMIN.password,
    });
    if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`);
    const token = (login.body as { token: string }).token;
    const as = (method: string, path: string, body?: unknown) =>
      call(bridgeUrl, method, path, body, { authorization: `Bearer ${token}` });
    const registered = await as('POST', '/ships', { url: shipUrl });
    if (registered.status !== 201) throw new Error(`ship registration: ${registered.status} ${registered.text}`);
    for (const [name, url] of Object.entries(repos)) {
      const repo = await as('POST', '/repos', { name, url });
      if (repo.status !== 201) throw new Error(`repo ${name}: ${repo.status} ${repo.text}`);
    }
    return {
      bridgeUrl,
      shipUrl,
      fleetDirectory,
      token,
      env: { SVC_TOKEN: token, XDG_CONFIG_HOME: join(root, 'config'), NO_COLOR: '1' },
      stopBridge: () => bridge.terminateThenKill(),
      async startBridge() {
        bridge = startNpx(bridgeArgs(new URL(bridgeUrl).port), bridgeEnv);
        started.push(bridge);
        await bridge.waitFor('bridge listening on', 60_000);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface NpxShip {
  ship: NpxProcess;
  url: string;
  fleetDirectory: string;
}

/**
 * An `npx svc ship` named `name` on a free port, its fleet under `root`, with each of `workspaces` created
 * from the fixture remote as repo `app` on `main` and activated; `env` is added to the ship's environment.
 */
export async function startNpxShip(
  root: string,
  name: string,
  workspaces: string[],
  env: Record<string, string> = {},
): Promise<NpxShip> {
  // A ship given SVC_BRIDGE_TOKEN answers only callers presenting it.
  const headers: Record<string, string> = env.SVC_BRIDGE_TOKEN
    ? { authorization: `Bearer ${env.SVC_BRIDGE_TOKEN}` }
    : {};
  const fleetDirectory = join(root, 'fleet');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const remote = makeRemote(root, 'app');
  const ship = startNpx(['ship', '--port', String(port), '--name', name, '--fleet-directory', fleetDirectory], env);
  await ship.waitFor('ship listening', 60_000);
  for (const workspace of workspaces) {
    const created = await call(
      url,
      'POST',
      '/workspaces',
      { url: remote.url, repoName: 'app', name: workspace, branch: 'main' },
      headers,
    );
    if (created.status !== 201) throw new Error(`create app/${workspace}: ${created.status} ${created.text}`);
    const activated = await call(url, 'POST', path('app', workspace, '/activate'), undefined, headers);
    if (activated.status !== 200) throw new Error(`activate app/${workspace}: ${activated.status} ${activated.text}`);
  }
  return { ship, url, fleetDirectory };
}

/**
 * For a test file: an `npx svc ship` (startNpxShip) in a temp root, started before its tests and stopped
 * after them the way a supervisor does (SIGTERM to the group, then SIGKILL), its tmux server and root removed.
 * The fields are filled once the file's beforeAll has run.
 */
export function useNpxShip(
  name: string,
  workspaces: string[],
  env: Record<string, string> = {},
): NpxShip & { root: string } {
  const fleet = {} as NpxShip & { root: string };
  beforeAll(async () => {
    fleet.root = await makeTempRoot();
    Object.assign(fleet, await startNpxShip(fleet.root, name, workspaces, env));
  }, 90_000);
  afterAll(async () => {
    await fleet.ship?.terminateThenKill();
    if (fleet.fleetDirectory) await killFleetTmux(fleet.fleetDirectory);
    if (fleet.root) await removeRoot(fleet.root);
  });
  return fleet;
}
