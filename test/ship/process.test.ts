// The real `svc ship` process: starts from the built CLI, writes the discovery file, serves, shuts down
// cleanly on SIGTERM leaving active sessions in tmux, and adopts them (with their MCP tokens) at the next start.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, TEST_SESSION_COMMAND } from '../helpers/ship.js';
import { Tmux } from '../../ship/sessions/tmux.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { tmuxSocketFor } from '../../ship/server.js';

const CLI = resolve(import.meta.dirname, '../../bin/svc.js');
const TOKEN = 'sentinel-process-bridge-token';
let root: string;
let remote: RemoteFixture;
let fleet: string;

interface Running {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stdout: () => string;
  exited: Promise<number | null>;
}

async function startProcess(extraArgs: string[] = []): Promise<Running> {
  const child = spawn(
    process.execPath,
    [CLI, 'ship', '--port', '0', '--name', 'proc-ship', '--fleet-directory', fleet, ...extraArgs],
    {
      env: {
        ...process.env,
        SVC_BRIDGE_TOKEN: TOKEN,
        SVC_SESSION_COMMAND: TEST_SESSION_COMMAND,
        SVC_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`ship did not start: ${out}${err}`)), 15_000);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /"msg":"ship listening"/.test(out) && /"port":(\d+),"fleetDirectory"/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`ship exited with ${code}: ${out}${err}`)));
  });
  return { child, url: `http://localhost:${port}`, stderr: () => err, stdout: () => out, exited };
}

const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  if (!existsSync(resolve(import.meta.dirname, '../../dist/cli/main.js')))
    throw new Error('run `npm run build` first (npm test does)');
  root = await makeTempRoot();
  remote = makeRemote(root);
  fleet = join(root, 'fleet');
});
afterAll(async () => {
  await new Tmux(tmuxSocketFor(fleet)).killServer();
  await removeRoot(root);
});

describe('svc ship as a process', () => {
  it('serves, survives a restart with its sessions adopted, and exits cleanly on SIGTERM', async () => {
    const first = await startProcess();
    const discovery = JSON.parse(readFileSync(join(fleet, 'atlas.json'), 'utf8'));
    expect(discovery).toEqual({ port: Number(new URL(first.url).port) });

    expect((await call(first.url, 'GET', '/workspaces')).status).toBe(401);
    expect(
      (
        await call(
          first.url,
          'POST',
          '/workspaces',
          { url: remote.url, repoName: 'p', name: 'w', branch: 'main' },
          auth,
        )
      ).status,
    ).toBe(201);
    expect((await call(first.url, 'POST', path('p', 'w', '/activate'), undefined, auth)).status).toBe(200);
    expect(
      (await call(first.url, 'POST', path('p', 'w', '/agent/init'), { model: 'm', provider: 'p', harness: 'h' }, auth))
        .status,
    ).toBe(200);
    const tmux = new Tmux(tmuxSocketFor(fleet));
    const token = (await tmux.sessionVariables(sessionName('p', 'w'))).SVC_MCP_TOKEN;

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect((await tmux.listSessions()).has(sessionName('p', 'w'))).toBe(true);

    const second = await startProcess();
    const status = await call(second.url, 'GET', path('p', 'w'), undefined, auth);
    expect(status.body).toMatchObject({ state: 'active', ship: 'proc-ship', agent: null });
    // The adopted session's MCP token still reaches its /mcp route (past the guard), and nothing else.
    expect(
      (await call(second.url, 'POST', path('p', 'w', '/mcp'), undefined, { authorization: `Bearer ${token}` })).status,
    ).not.toBe(401);
    expect((await call(second.url, 'GET', '/workspaces', undefined, { authorization: `Bearer ${token}` })).status).toBe(
      401,
    );

    expect((await call(second.url, 'POST', path('p', 'w', '/deactivate'), undefined, auth)).status).toBe(200);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    // Request logs are on (info), yet no token ever reaches them.
    for (const run of [first, second]) {
      expect(run.stdout()).toContain('"url":"/workspaces"');
      expect(run.stdout() + run.stderr()).not.toContain(TOKEN);
      expect(run.stdout() + run.stderr()).not.toContain(token!);
    }
    // No active workspace left: the ship took its idle tmux server down with it.
    expect((await tmux.listSessions()).size).toBe(0);
  });

  it('warns at start when SVC_BRIDGE_TOKEN is unset', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'ship', '--port', '0', '--fleet-directory', join(root, 'open-fleet'), '--name', 'open'],
      {
        env: { ...process.env, SVC_BRIDGE_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    await new Promise<void>((resolve) =>
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('ship listening')) resolve();
      }),
    );
    expect(out).toContain('SVC_BRIDGE_TOKEN is not set');
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));
  });

  it('says clearly when tmux is missing', async () => {
    const { mkdtempSync, symlinkSync } = await import('node:fs');
    const bin = mkdtempSync(join(root, 'bin-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    symlinkSync('/usr/bin/git', join(bin, 'git'));
    const child = spawn(process.execPath, [CLI, 'ship', '--port', '0', '--fleet-directory', join(root, 'no-tmux')], {
      env: { ...process.env, PATH: bin },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (chunk) => (err += chunk));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(1);
    expect(err).toContain('svc: tmux was not found on PATH');
  });

  it('prints usage errors as `svc: …`-style failures with a non-zero exit', async () => {
    const child = spawn(process.execPath, [CLI, 'ship', '--port', 'banana'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (chunk) => (err += chunk));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(err).toContain('must be a port number');
    const badName = spawn(process.execPath, [CLI, 'ship', '--name', 'a/b'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let nameErr = '';
    badName.stderr!.on('data', (chunk) => (nameErr += chunk));
    expect(await new Promise((resolve) => badName.on('exit', resolve))).not.toBe(0);
    expect(nameErr).toContain('must not contain path separators');
  });
});
