// What `svc` loads before it starts (issue #14 item 6): `--help`, `completion`, `whoami` and `client ls` must
// not import the schema library, the servers or the packages only some verbs need (typebox, ws, yaml,
// fastify, pino, read…). Each runs the built CLI with a preload that records every module URL the ESM loader
// resolves. This guards the structure, not the time: a future eager import fails here, the timing lives in
// `npm run bench cli`.
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';

const ROOT = resolve(import.meta.dirname, '../..');

// Loader hooks run off the main thread; each resolved URL is appended to the file the environment names.
const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.SVC_TEST_MODULE_LOG, result.url + '\\n');
  return result;
}`;
const PRELOAD = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

/** Packages and our own server code that no start-up path of these commands may load. */
const FORBIDDEN = [
  /\/node_modules\/(typebox|@fastify\/[^/]+|fastify|ws|yaml|pino|read|mute-stream|@xterm\/[^/]+|pg|@electric-sql\/[^/]+|simple-git|@node-rs\/[^/]+|@lydell\/[^/]+)\//,
  // dist is a link to the build in use (bin/build.js): modules resolve to `.dist-<hash>/…`.
  /\/(dist|\.dist-[^/]+)\/(bridge|ship)\//,
  /\/(dist|\.dist-[^/]+)\/protocol\/index\.js$/,
];

let scratch: string;
let closedPort: number;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-test-startup-'));
  closedPort = await freePort();
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let runs = 0;
/** Runs `svc <args>` and returns the module URLs it resolved, with its exit code and stderr. */
async function modulesLoadedBy(args: string[]): Promise<{ urls: string[]; code: number; stderr: string }> {
  const log = join(scratch, `modules-${runs++}.log`);
  const env = {
    ...process.env,
    SVC_TEST_MODULE_LOG: log,
    SVC_TOKEN: 'not-a-real-session',
    HOME: scratch,
    NO_COLOR: '1',
  };
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolveRun) => {
    execFile(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(PRELOAD)}`, CLI, ...args],
      { env, cwd: ROOT, timeout: 20_000 },
      (error, _stdout, stderr) =>
        resolveRun({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
  const urls = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  return { urls, code, stderr };
}

const forbiddenIn = (urls: string[]) => [
  ...new Set(urls.filter((url) => FORBIDDEN.some((pattern) => pattern.test(url)))),
];

describe('svc start-up loads only what the command uses', () => {
  it('--help loads commander and the command tree, nothing heavier', async () => {
    const { urls, code } = await modulesLoadedBy(['--help']);
    expect(code).toBe(0);
    // The recorder works: it saw the CLI's entry and commander.
    // dist is a link to the build in use (bin/build.js); modules load by their real path.
    const built = pathToFileURL(realpathSync(resolve(import.meta.dirname, '../../dist/cli/main.js'))).href;
    expect(urls).toContain(built);
    expect(urls.some((url) => url.includes('/node_modules/commander/'))).toBe(true);
    expect(forbiddenIn(urls)).toEqual([]);
  });

  it('completion bash loads nothing heavier either', async () => {
    const { urls, code } = await modulesLoadedBy(['completion', 'bash']);
    expect(code).toBe(0);
    expect(forbiddenIn(urls)).toEqual([]);
  });

  it('whoami and client ls make their request without loading schemas or servers', async () => {
    // Nothing listens on the port: the command gets as far as its HTTP call, so everything it loads to make one is loaded.
    for (const args of [
      ['whoami', '--bridge-url', String(closedPort)],
      ['client', '--bridge-url', String(closedPort), 'ls'],
    ]) {
      const { urls, code, stderr } = await modulesLoadedBy(args);
      expect({ args, code, stderr }).toMatchObject({ code: 1, stderr: expect.stringContaining('cannot reach') });
      expect({ args, forbidden: forbiddenIn(urls) }).toEqual({ args, forbidden: [] });
    }
  });

  it('the guard sees what an action loads: launch reads its file with yaml and TypeBox', async () => {
    // A configuration with a wrong field: the action loads its reader, which refuses it before starting anything.
    const config = join(scratch, 'svc.yaml');
    await writeFile(config, 'bridge:\n  port: not-a-port\n');
    const { urls, code, stderr } = await modulesLoadedBy(['launch', '--config-path', config]);
    expect({ code, stderr }).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('bridge.port: expected an integer'),
    });
    const seen = forbiddenIn(urls);
    expect(seen.some((url) => url.includes('/node_modules/yaml/'))).toBe(true);
    expect(seen.some((url) => url.includes('/node_modules/typebox/'))).toBe(true);
  });
});
