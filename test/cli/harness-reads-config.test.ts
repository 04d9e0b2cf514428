// The real agent harness CLIs (issue #16) reading what `svc agent mcp-config --write` wrote, inside a real
// workspace of a real ship, with the session's variables read from the ship's tmux and a HOME of their own:
// each harness's own list command shows the `svc-agent` server with the workspace's URL and, where it checks
// health, connects to the live ship with the session token (and is refused with a wrong one); and a headless
// session of the harness, pointed at a local stand-in for its model API, offers the model the ship's 13 tools
// under the names `--check` prints (so the harness connected with the token and listed the tools itself).
//
// The harnesses are npm packages too large for devDependencies: .ci/run installs them, pinned, into
// ~/.cache/svc-ci/harnesses and sets SVC_HARNESS_BIN_DIR to its node_modules/.bin. A harness not found there
// is skipped with a notice saying how to install it (under CI=true: failed). None needs a login or the network for this: the list
// commands read files, and the sessions talk to the local model stand-in and the ship only.
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { MCP_INSTRUCTIONS } from '../../ship/agents/mcp/server.js';
import { CI_CACHE, toolAvailable } from '../helpers/external-tools.js';

const BIN_DIR = process.env.SVC_HARNESS_BIN_DIR || join(CI_CACHE, 'harnesses', 'node_modules', '.bin');
const BRIDGE_TOKEN = 'sentinel-bridge-token-harness-reads-config-1';
const auth = { authorization: `Bearer ${BRIDGE_TOKEN}` };
const TOOL_COUNT = 13;
const WRONG_TOKEN = 'not-this-workspaces-token';

/** The harness's command in BIN_DIR, or null (skipped with how to get it; under CI=true, failed). */
function harnessBin(command: string, pkg: string): string | null {
  const bin = join(BIN_DIR, command);
  const hint =
    `install it with \`npm install --prefix ${join(CI_CACHE, 'harnesses')} --no-save ${pkg}@<version pinned in .ci/run>\` ` +
    `(or set SVC_HARNESS_BIN_DIR to a directory holding \`${command}\`)`;
  return toolAvailable(bin, `harness-reads-config (${pkg})`, hint) ? bin : null;
}

const claude = harnessBin('claude', '@anthropic-ai/claude-code');
const codex = harnessBin('codex', '@openai/codex');
const opencode = harnessBin('opencode', 'opencode-ai');
const gemini = harnessBin('gemini', '@google/gemini-cli');
const copilot = harnessBin('copilot', '@github/copilot');

let root: string;
let ship: TestShip;
let workspace: string;
let port: string;
let mcpUrl: string;
let model: ModelStandIn;

async function sessionEnv(): Promise<Record<string, string>> {
  const vars = await ship.ship.tmux.sessionVariables(sessionName('app', 'w1'));
  return { SVC_MCP_TOKEN: vars.SVC_MCP_TOKEN!, SVC_SHIP_URL: vars.SVC_SHIP_URL!, SVC_WORKSPACE: vars.SVC_WORKSPACE! };
}

/** A fresh HOME for one harness; the XDG directories inside it. */
function makeHome(name: string): string {
  const home = join(root, `home-${name}`);
  mkdirSync(home);
  return home;
}

const xdg = (home: string) => ({
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  XDG_CACHE_HOME: join(home, '.cache'),
});

/** `svc agent mcp-config <args>` in the workspace, as the agent's shell would run it. */
async function svcAgent(home: string, args: string[]) {
  const result = await runCli(
    ['agent', 'mcp-config', ...args],
    { ...xdg(home), ...(await sessionEnv()) },
    20_000,
    workspace,
  );
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

/** The tool names `svc agent mcp-config --check` prints for `harness`. */
async function checkedToolNames(home: string, harness: string): Promise<string[]> {
  const stdout = await svcAgent(home, ['--harness', harness, '--check']);
  const match = new RegExp(`^${harness}: ok, ${TOOL_COUNT} tools: (.*)$`, 'm').exec(stdout);
  expect(match, stdout).not.toBeNull();
  return match![1]!.split(', ').sort();
}

interface Run {
  code: number | null;
  stdout: string;
  /** stdout and stderr as they arrived (Gemini CLI writes its listing to stderr). */
  output: string;
}

/**
 * Runs a harness in the workspace with only the environment it is given on top of the machine's (no
 * credentials or settings of the person running the tests: every ANTHROPIC_/OPENAI_/… variable is dropped).
 */
function runHarness(bin: string, args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Run> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(ANTHROPIC|CLAUDE|OPENAI|CODEX|OPENCODE|GEMINI|GOOGLE|COPILOT|GH|GITHUB|SVC)_/.test(key),
    ),
  );
  return new Promise((resolveRun, reject) => {
    const child = spawn(bin, args, {
      cwd: workspace,
      env: { ...inherited, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${bin} ${args.join(' ')} did not exit within ${timeoutMs} ms; output:\n${output}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout: stripAnsi(stdout), output: stripAnsi(output) });
    });
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC begins the escape sequences stripped here
const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

interface ModelStandIn {
  url: string;
  requests: Array<{ method: string; url: string; body: any }>;
  close(): Promise<void>;
}

/**
 * A local stand-in for a model API: records every request (the harness's first request carries the tools it
 * offers the model) and answers 404, so the session ends there with no model turn and no tool call.
 */
async function startModelStandIn(): Promise<ModelStandIn> {
  const requests: ModelStandIn['requests'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      requests.push({ method: request.method ?? '', url: request.url ?? '', body });
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { type: 'not_found_error', message: 'the test stand-in has no model' } }));
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () => new Promise((resolveClose) => server.close(() => resolveClose())),
  };
}

/** The tool names of the first recorded request to `route` that offers any, picked by `names`. */
function offeredTools(route: RegExp, names: (body: any) => string[]): string[] {
  const offered = model.requests
    .filter((request) => route.test(request.url) && request.body)
    .map((request) => names(request.body));
  const found = offered.find((list) => list.length > 0);
  if (!found)
    throw new Error(
      `no request to ${route} offered tools: ${JSON.stringify(model.requests.map((request) => request.url))}`,
    );
  return found;
}

beforeAll(async () => {
  root = await makeTempRoot('svc-test-harnesses-');
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
  mcpUrl = `http://localhost:${port}/workspaces/app/w1/mcp`;
  model = await startModelStandIn();
}, 60_000);
afterAll(async () => {
  await model?.close();
  await ship?.stop();
  if (root) await removeRoot(root);
});

describe.skipIf(!claude)('Claude Code (@anthropic-ai/claude-code)', () => {
  let home: string;
  beforeAll(async () => {
    home = makeHome('claude');
    expect(await svcAgent(home, ['--harness', 'claude-code', '--write'])).toContain('claude-code: wrote ');
  });

  it('`claude mcp list` reads the local-scope entry and connects with the session token; a wrong token gets 401', async () => {
    const listed = await runHarness(claude!, ['mcp', 'list'], { ...xdg(home), ...(await sessionEnv()) });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`\nsvc-agent: ${mcpUrl} (HTTP) - ✔ Connected\n`);

    const refused = await runHarness(claude!, ['mcp', 'list'], {
      ...xdg(home),
      ...(await sessionEnv()),
      SVC_MCP_TOKEN: WRONG_TOKEN,
    });
    expect(refused.stdout).toContain(`\nsvc-agent: ${mcpUrl} (HTTP) - ✘ Failed to connect`);
    expect(refused.stdout).toContain('(HTTP 401)');
  }, 60_000);

  it('a `claude -p` session offers the model the 13 tools, named as --check prints them', async () => {
    model.requests.length = 0;
    await runHarness(claude!, ['-p', 'hello'], {
      ...xdg(home),
      ...(await sessionEnv()),
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'sk-test-stand-in',
      // MCP tools are otherwise deferred behind a tool search, not sent with the first request.
      ENABLE_TOOL_SEARCH: 'false',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    const offered = offeredTools(/^\/v1\/messages/, (body) =>
      (body.tools ?? []).map((tool: any) => tool.name).filter((name: string) => name.startsWith('mcp__svc-agent__')),
    );
    expect(offered.sort()).toEqual(await checkedToolNames(home, 'claude-code'));
  }, 60_000);
});

describe.skipIf(!codex)('Codex (@openai/codex)', () => {
  let home: string;
  beforeAll(async () => {
    home = makeHome('codex');
    expect(await svcAgent(home, ['--harness', 'codex', '--write'])).toContain('codex: wrote ');
  });
  /** What the person does when Codex asks whether to trust the folder. */
  const trustProject = () => {
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      `[projects.${JSON.stringify(workspace)}]\ntrust_level = "trusted"\n`,
    );
  };

  it('`codex mcp list` reads the workspace project file once the project is trusted', async () => {
    const untrusted = await runHarness(codex!, ['mcp', 'list', '--json'], xdg(home));
    expect(untrusted.code).toBe(0);
    expect(JSON.parse(untrusted.stdout)).toEqual([]);

    trustProject();
    const listed = await runHarness(codex!, ['mcp', 'list', '--json'], xdg(home));
    expect(listed.code).toBe(0);
    const servers = JSON.parse(listed.stdout);
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({
      name: 'svc-agent',
      enabled: true,
      transport: { type: 'streamable_http', url: mcpUrl, bearer_token_env_var: 'SVC_MCP_TOKEN', http_headers: null },
    });
  }, 60_000);

  it('a `codex exec` session offers the model the 13 tools with the server instructions, named as --check prints them', async () => {
    trustProject();
    model.requests.length = 0;
    const provider = `{name="stand-in",base_url="${model.url}/v1",env_key="STAND_IN_KEY",wire_api="responses",request_max_retries=0,stream_max_retries=0}`;
    await runHarness(
      codex!,
      [
        'exec',
        '-c',
        'model_provider="stand-in"',
        '-c',
        `model_providers.stand-in=${provider}`,
        '-m',
        'stand-in-model',
        'hello',
      ],
      {
        ...xdg(home),
        ...(await sessionEnv()),
        STAND_IN_KEY: 'test-key',
      },
    );
    let namespace: any;
    const offered = offeredTools(/^\/v1\/responses/, (body) => {
      namespace = (body.tools ?? []).find((tool: any) => tool.name === 'mcp__svc_agent');
      return (namespace?.tools ?? []).map((tool: any) => `${namespace.name}__${tool.name}`);
    });
    expect(namespace).toMatchObject({ type: 'namespace', description: MCP_INSTRUCTIONS });
    expect(offered.sort()).toEqual(await checkedToolNames(home, 'codex'));
  }, 60_000);
});

describe.skipIf(!opencode)('opencode (opencode-ai)', () => {
  let home: string;
  beforeAll(async () => {
    home = makeHome('opencode');
    expect(await svcAgent(home, ['--harness', 'opencode', '--write'])).toContain('opencode: wrote ');
  });

  it('`opencode mcp list` resolves the URL from the session variables and connects; a wrong token gets 401', async () => {
    const listed = await runHarness(opencode!, ['mcp', 'list'], { ...xdg(home), ...(await sessionEnv()) });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/✓ svc-agent connected\n/);
    expect(listed.stdout).toContain(`${mcpUrl}\n`);
    expect(listed.stdout).toContain('1 server(s)');

    const refused = await runHarness(opencode!, ['mcp', 'list'], {
      ...xdg(home),
      ...(await sessionEnv()),
      SVC_MCP_TOKEN: WRONG_TOKEN,
    });
    expect(refused.stdout).toMatch(/✗ svc-agent failed\n/);
    expect(refused.stdout).toContain('(401)');
  }, 60_000);
});

describe.skipIf(!gemini)('Gemini CLI (@google/gemini-cli)', () => {
  let home: string;
  beforeAll(async () => {
    home = makeHome('gemini');
    // A setting of the person's own (an API key as the sign-in), kept by --write; the session below needs it.
    mkdirSync(join(home, '.gemini'));
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      '{\n  // signed in with an API key\n  "security": { "auth": { "selectedType": "gemini-api-key" } }\n}\n',
    );
    expect(await svcAgent(home, ['--harness', 'gemini', '--write'])).toContain('gemini: wrote ');
  });
  /** What the person does when Gemini asks whether to trust the folder. */
  const trustFolder = () =>
    writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [workspace]: 'TRUST_FOLDER' }));

  it('`gemini mcp list`: disabled in an untrusted folder; trusted, it connects with the session token; a wrong token does not', async () => {
    const untrusted = await runHarness(gemini!, ['mcp', 'list'], { ...xdg(home), ...(await sessionEnv()) });
    expect(untrusted.output).toContain('disabled because this folder is untrusted');
    expect(untrusted.output).toContain(`svc-agent: ${mcpUrl} (http) - Disabled\n`);

    trustFolder();
    const listed = await runHarness(gemini!, ['mcp', 'list'], { ...xdg(home), ...(await sessionEnv()) });
    expect(listed.code).toBe(0);
    expect(listed.output).toContain(`✓ svc-agent: ${mcpUrl} (http) - Connected\n`);

    const refused = await runHarness(gemini!, ['mcp', 'list'], {
      ...xdg(home),
      ...(await sessionEnv()),
      SVC_MCP_TOKEN: WRONG_TOKEN,
    });
    expect(refused.output).toContain(`✗ svc-agent: ${mcpUrl} (http) - Disconnected\n`);
  }, 60_000);

  it('a `gemini -p` session offers the model the 13 tools, named as --check prints them', async () => {
    trustFolder();
    model.requests.length = 0;
    await runHarness(gemini!, ['-p', 'hello'], {
      ...xdg(home),
      ...(await sessionEnv()),
      GEMINI_API_KEY: 'test-key',
      GOOGLE_GEMINI_BASE_URL: model.url,
    });
    const offered = offeredTools(/:streamGenerateContent|:generateContent/, (body) =>
      (body.tools ?? [])
        .flatMap((tool: any) => (tool.functionDeclarations ?? []).map((declaration: any) => declaration.name))
        .filter((name: string) => name.startsWith('mcp_svc-agent_')),
    );
    expect(offered.sort()).toEqual(await checkedToolNames(home, 'gemini'));
  }, 60_000);
});

describe.skipIf(!copilot)('GitHub Copilot CLI (@github/copilot)', () => {
  let home: string;
  beforeAll(async () => {
    home = makeHome('copilot');
    expect(await svcAgent(home, ['--harness', 'copilot', '--write'])).toContain('copilot: wrote ');
  });

  it('`copilot mcp list` accepts the user-scope entry as written', async () => {
    const listed = await runHarness(copilot!, ['mcp', 'list', '--json'], {
      ...xdg(home),
      COPILOT_AUTO_UPDATE: 'false',
    });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).mcpServers).toEqual({
      'svc-agent': {
        type: 'http',
        url: `http://localhost:${port}/workspaces/\${SVC_WORKSPACE}/mcp`,
        headers: { Authorization: 'Bearer ${SVC_MCP_TOKEN}' },
        tools: ['*'],
        source: 'user',
        enabled: true,
      },
    });
  }, 60_000);

  it('a `copilot -p` session (offline, a local model provider) offers the model the 13 tools, named as --check prints them', async () => {
    model.requests.length = 0;
    await runHarness(copilot!, ['-p', 'hello', '--allow-all-tools'], {
      ...xdg(home),
      ...(await sessionEnv()),
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`,
      COPILOT_MODEL: 'stand-in-model',
    });
    const offered = offeredTools(/^\/v1\/chat\/completions/, (body) =>
      (body.tools ?? [])
        .map((tool: any) => tool.function?.name)
        .filter((name: string | undefined) => name?.startsWith('svc-agent-')),
    );
    expect(offered.sort()).toEqual(await checkedToolNames(home, 'copilot'));
  }, 60_000);
});
