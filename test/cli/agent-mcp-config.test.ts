// `svc agent mcp-config` (issue #16) run as a process inside a real workspace of a real ship, with the
// session's variables read from the ship's tmux like an agent's shell gets them, and a HOME of its own:
// the printed entry per harness against a golden file (SVC_UPDATE_GOLDEN=1 rewrites them), `--write` twice
// (the second changes nothing; hand-written entries and comments stay; the workspace file is git-excluded),
// and `--check` against the live ship, then again after deactivate/activate rotated the token. The real
// harness CLIs reading the written files: harness-reads-config.test.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { runCli } from '../helpers/cli.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { sessionName } from '../../ship/sessions/session-names.js';

const BRIDGE_TOKEN = 'sentinel-bridge-token-agent-mcp-config-1';
const auth = { authorization: `Bearer ${BRIDGE_TOKEN}` };
const GOLDEN = join(import.meta.dirname, 'agent-mcp-config');
const HARNESSES = ['claude-code', 'codex', 'opencode', 'copilot', 'gemini'];
const TOOL_COUNT = 13;

let root: string;
let ship: TestShip;
let workspace: string;
let home: string;
let port: string;

async function sessionEnv(): Promise<Record<string, string>> {
  const vars = await ship.ship.tmux.sessionVariables(sessionName('app', 'w1'));
  return { SVC_MCP_TOKEN: vars.SVC_MCP_TOKEN!, SVC_SHIP_URL: vars.SVC_SHIP_URL!, SVC_WORKSPACE: vars.SVC_WORKSPACE! };
}

const svc = (args: string[], env: Record<string, string>, cwd = join(workspace, 'src', 'deep')) =>
  runCli(['agent', 'mcp-config', ...args], { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...env }, 20_000, cwd);

const normalise = (text: string) =>
  text
    .split(workspace)
    .join('<workspace>')
    .split(home)
    .join('<home>')
    .split(`localhost:${port}`)
    .join('localhost:<port>');

beforeAll(async () => {
  root = await makeTempRoot('svc-test-agent-mcp-');
  ship = await startTestShip(root, { bridgeToken: BRIDGE_TOKEN });
  port = new URL(ship.url).port;
  const remote = makeRemote(root);
  expect(
    (
      await call(
        ship.url,
        'POST',
        '/workspaces',
        { url: remote.url, repoName: 'app', name: 'w1', branch: 'main' },
        auth,
      )
    ).status,
  ).toBe(201);
  expect((await call(ship.url, 'POST', path('app', 'w1', '/activate'), undefined, auth)).status).toBe(200);
  workspace = realpathSync(join(root, 'fleet', 'app', 'w1'));
  mkdirSync(join(workspace, 'src', 'deep'), { recursive: true });
  home = join(root, 'home');
  mkdirSync(home);
}, 60_000);
afterAll(async () => {
  await ship?.stop();
  if (root) await removeRoot(root);
});

it('prints each harness entry, found from a subdirectory of the workspace (golden files), with no token in it', async () => {
  const env = await sessionEnv();
  for (const harness of HARNESSES) {
    const result = await svc(['--harness', harness], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(env.SVC_MCP_TOKEN);
    const file = join(GOLDEN, `${harness}.golden`);
    if (process.env.SVC_UPDATE_GOLDEN === '1') writeFileSync(file, normalise(result.stdout));
    expect(normalise(result.stdout)).toBe(readFileSync(file, 'utf8'));
  }
  const all = await svc(['--harness', 'all'], env);
  expect(normalise(all.stdout)).toBe(
    HARNESSES.map((harness) => readFileSync(join(GOLDEN, `${harness}.golden`), 'utf8')).join(''),
  );
}, 60_000);

it('--write merges each entry, keeps hand-written entries and comments, excludes the workspace file; twice is a no-op', async () => {
  const env = await sessionEnv();
  const files = {
    'claude-code': join(home, '.claude.json'),
    codex: join(workspace, '.codex', 'config.toml'),
    opencode: join(home, '.config', 'opencode', 'opencode.json'),
    copilot: join(home, '.copilot', 'mcp-config.json'),
    gemini: join(home, '.gemini', 'settings.json'),
  };
  for (const file of Object.values(files)) mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(
    files['claude-code'],
    JSON.stringify(
      {
        numStartups: 3,
        projects: {
          '/elsewhere': { mcpServers: { mine: { type: 'http', url: 'http://mine' } }, allowedTools: ['Bash'] },
        },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    files.codex,
    '# my codex settings\nmodel = "o3" # keep this\n\n[mcp_servers.mine]\nurl = "http://mine" # mine\n',
  );
  writeFileSync(
    files.opencode,
    '{\n  // my opencode settings\n  "mcp": { "mine": { "type": "remote", "url": "http://mine" } },\n}\n',
  );
  writeFileSync(
    files.copilot,
    '{\n  // my copilot servers\n  "mcpServers": { "mine": { "type": "http", "url": "http://mine" } }\n}\n',
  );
  writeFileSync(
    files.gemini,
    '{\n  /* my gemini settings */\n  "theme": "dark",\n  "mcpServers": { "mine": { "httpUrl": "http://mine" } }\n}\n',
  );

  const first = await svc(['--harness', 'all', '--write'], env);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  for (const harness of HARNESSES) expect(first.stdout).toContain(`${harness}: wrote `);
  expect(first.stdout).toContain('added /.codex/config.toml to ');
  const written = Object.fromEntries(
    Object.entries(files).map(([harness, file]) => [harness, readFileSync(file, 'utf8')]),
  );
  for (const text of Object.values(written)) expect(text).not.toContain(env.SVC_MCP_TOKEN);

  const claude = parseJsonc(written['claude-code']!);
  expect(claude.numStartups).toBe(3);
  expect(claude.projects['/elsewhere'].mcpServers.mine.url).toBe('http://mine');
  expect(claude.projects[workspace].mcpServers['svc-agent']).toEqual({
    type: 'http',
    url: `http://localhost:${port}/workspaces/app/w1/mcp`,
    headers: { Authorization: 'Bearer ${SVC_MCP_TOKEN}' },
  });
  expect(claude.projects[workspace].allowedTools).toEqual([
    'mcp__svc-agent__agent_init',
    'mcp__svc-agent__agent_status',
    'mcp__svc-agent__agent_status_get',
  ]);

  expect(written.codex).toContain(
    '# my codex settings\nmodel = "o3" # keep this\n\n[mcp_servers.mine]\nurl = "http://mine" # mine\n',
  );
  const codex = parseToml(written.codex!) as any;
  expect(codex.mcp_servers.mine.url).toBe('http://mine');
  expect(codex.mcp_servers['svc-agent']).toMatchObject({
    url: `http://localhost:${port}/workspaces/app/w1/mcp`,
    bearer_token_env_var: 'SVC_MCP_TOKEN',
  });
  expect(codex.mcp_servers['svc-agent'].tools.agent_status).toEqual({ approval_mode: 'approve' });
  expect(readFileSync(join(workspace, '.git', 'info', 'exclude'), 'utf8')).toContain('\n/.codex/config.toml\n');
  expect(
    execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: workspace, encoding: 'utf8' }),
  ).not.toContain('.codex');

  expect(written.opencode).toContain('// my opencode settings');
  const opencode = parseJsonc(written.opencode!);
  expect(opencode.mcp.mine.url).toBe('http://mine');
  expect(opencode.mcp['svc-agent']).toEqual({
    type: 'remote',
    url: '{env:SVC_SHIP_URL}/workspaces/{env:SVC_WORKSPACE}/mcp',
    headers: { Authorization: 'Bearer {env:SVC_MCP_TOKEN}' },
    oauth: false,
    enabled: true,
  });
  expect(written.copilot).toContain('// my copilot servers');
  expect(parseJsonc(written.copilot!).mcpServers['svc-agent']).toEqual({
    type: 'http',
    url: `http://localhost:${port}/workspaces/\${SVC_WORKSPACE}/mcp`,
    headers: { Authorization: 'Bearer ${SVC_MCP_TOKEN}' },
    tools: ['*'],
  });
  expect(written.gemini).toContain('/* my gemini settings */');
  const gemini = parseJsonc(written.gemini!);
  expect(gemini.theme).toBe('dark');
  expect(gemini.mcpServers['svc-agent']).toEqual({
    httpUrl: '${SVC_SHIP_URL}/workspaces/${SVC_WORKSPACE}/mcp',
    headers: { Authorization: 'Bearer ${SVC_MCP_TOKEN}' },
    trust: true,
  });

  const second = await svc(['--harness', 'all', '--write'], env);
  expect(second.code).toBe(0);
  for (const harness of HARNESSES)
    expect(second.stdout).toContain(`${harness}: ${files[harness as keyof typeof files]} is up to date`);
  expect(second.stdout).not.toContain('added ');
  for (const [harness, file] of Object.entries(files)) expect(readFileSync(file, 'utf8')).toBe(written[harness]);
  expect(
    readFileSync(join(workspace, '.git', 'info', 'exclude'), 'utf8').match(/\/\.codex\/config\.toml/g),
  ).toHaveLength(1);
}, 60_000);

it('--check connects as each harness would and lists the tools; after deactivate/activate the old token fails with the fix', async () => {
  const env = await sessionEnv();
  const ok = await svc(['--harness', 'all', '--check'], env);
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  for (const harness of HARNESSES) expect(ok.stdout).toMatch(new RegExp(`^${harness}: ok, ${TOOL_COUNT} tools: `, 'm'));
  expect(ok.stdout).toContain('mcp__svc-agent__agent_status_get');
  expect(ok.stdout).not.toContain(env.SVC_MCP_TOKEN);

  expect((await call(ship.url, 'POST', path('app', 'w1', '/deactivate'), undefined, auth)).status).toBe(200);
  expect((await call(ship.url, 'POST', path('app', 'w1', '/activate'), undefined, auth)).status).toBe(200);
  expect((await sessionEnv()).SVC_MCP_TOKEN).not.toBe(env.SVC_MCP_TOKEN);
  for (const harness of ['claude-code', 'codex']) {
    const stale = await svc(['--harness', harness, '--check'], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('(401): restart the session so the ship injects a fresh token');
  }
  const fresh = await svc(['--harness', 'claude-code', '--check'], await sessionEnv());
  expect(fresh.code).toBe(0);

  // A session whose variables no longer name this ship (the ship came back on another port).
  const moved = await svc(['--harness', 'gemini', '--check'], {
    ...(await sessionEnv()),
    SVC_SHIP_URL: 'http://localhost:1',
  });
  expect(moved.code).toBe(1);
  expect(moved.stderr).toContain('restart the session so the ship injects a fresh token');
}, 60_000);

it('outside a workspace it says where it looked', async () => {
  const elsewhere = join(root, 'elsewhere');
  mkdirSync(elsewhere, { recursive: true });
  const result = await svc(['--harness', 'codex'], {}, elsewhere);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('svc: not inside a workspace');
  expect(existsSync(join(home, 'nothing'))).toBe(false);
});

it('uses the URL a ship was told to give its sessions (--session-url), a loopback address included; the default localhost one yields to the discovery file', async () => {
  const env = await sessionEnv();
  const told = await svc(['--harness', 'codex'], { ...env, SVC_SHIP_URL: `http://127.0.0.1:${port}/` });
  expect(told.code).toBe(0);
  expect(told.stdout).toContain(`url = "http://127.0.0.1:${port}/workspaces/app/w1/mcp"`);
  const stale = await svc(['--harness', 'codex'], { ...env, SVC_SHIP_URL: 'http://localhost:1' });
  expect(stale.code).toBe(0);
  expect(stale.stdout).toContain(`url = "http://localhost:${port}/workspaces/app/w1/mcp"`);
});
