// End-to-end terminal benchmarks (issue #31, "The terminal": Speed and Keystroke echo), `npm run bench --
// terminal-e2e`: a `svc bridge` (authentication on) and a `svc ship` on real tmux, every figure a ratio to a
// reference measured in the same run, rounds interleaved.
//   - Keystroke echo as an independent client sees it: a marker typed, until it is on the client's
//     reconstructed screen (its inflate, the ship's frame build and send, the pacer's hold, the acks it
//     sends all counted), straight to the ship and through the bridge, with a client that compresses every
//     message as a browser does and with one that offers no deflate; against a tmux client attached in a pty
//     to a bare tmux session running the same `cat`, from the key written to the pty until its echo is
//     drawn. p50 ≤ 2× the tmux client's, p99 ≤ 5 ms.
//   - `cat` of 16 MB in the GUI's terminal page in Chromium through the bridge, from the page sending Enter
//     to the animation frame whose xterm.js rows hold the last line, against `svc client attach` through the
//     same bridge in a pty of the size the page asked for, from Enter to the last line drawn (≤ 1.2×). The
//     page checks every frame's `seq`: a gap is a frame the ship sent that the page never got (must be 0).
// SVC_BENCH_VERBOSE=1 prints every round; SVC_BENCH_ROUNDS sets the `cat` rounds (default 4).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { post } from './lib/post.js';
import { launchChromium } from './lib/chromium.js';
import { makeBenchRemote } from './lib/fixtures.js';
import { guiTerminalProbeScript, type GuiTerminalProbe } from './lib/gui-terminal-probe.js';
import { median, percentile } from './lib/load.js';
import { freePort } from './lib/ports.js';
import { endFleetTmux, startBridgeProcess, startShipProcess, type Child } from './lib/processes.js';
import { PtyProcess } from './lib/pty-process.js';
import { BenchTerminal, modeLabel } from './lib/terminal-client.js';
import { mixedOutput } from './terminal.js';
import type { BenchRow } from './report.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SVC = join(ROOT, 'bin/svc.js');
const COLS = 120;
const ROWS = 40;
/** Echo: markers per block; blocks per path (each path takes a block in turn, in a rotating order). */
const PER_BLOCK = 40;
const BLOCKS = 6;
const verbose = process.env.SVC_BENCH_VERBOSE === '1';
const log = (line: string) => verbose && process.stderr.write(`terminal-e2e: ${line}\n`);
const prompt = /[$#] ?$/m;

/** Something a key can be typed into and its echo waited for. */
interface EchoPath {
  name: string;
  /** Types `text`; resolves with the milliseconds until it is drawn. */
  type(text: string): Promise<number>;
  newLine(): void;
}

function svcPath(name: string, terminal: BenchTerminal): EchoPath {
  return {
    name,
    async type(text) {
      const started = performance.now();
      terminal.send({ type: 'input', data: text });
      await terminal.untilDrawn(text, 5000);
      return performance.now() - started;
    },
    newLine: () => terminal.send({ type: 'input', data: '\r' }),
  };
}

function ptyPath(name: string, pty: PtyProcess): EchoPath {
  return {
    name,
    async type(text) {
      pty.reset();
      const started = performance.now();
      pty.write(text);
      return (await pty.until(text, 5000)) - started;
    },
    newLine: () => pty.write('\r'),
  };
}

let tags = 0;
/** PER_BLOCK unique markers into `cat` on `path`, a fresh line every 20. */
async function echoBlock(path: EchoPath): Promise<number[]> {
  const tag = String.fromCharCode(97 + (tags++ % 26));
  const times: number[] = [];
  for (let i = 0; i < PER_BLOCK; i++) {
    if (i % 20 === 0) {
      path.newLine();
      await sleep(50);
    }
    times.push(await path.type(`${tag}${i}q`));
    await sleep(5);
  }
  return times;
}

async function keystrokeEcho(bridge: Child & { token: string }, ship: Child): Promise<BenchRow[]> {
  const auth = { authorization: `Bearer ${bridge.token}` };
  const socket = `svc-bench-e2e-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-s',
    'bare',
    '-x',
    String(COLS),
    '-y',
    String(ROWS),
    'bash --noprofile --norc',
  );
  tmux('set-option', '-g', 'status', 'off');
  const attached = new PtyProcess(`tmux -L ${socket} attach -t =bare`, COLS, ROWS, {
    ...process.env,
    TERM: 'xterm-256color',
    TMUX: undefined,
  });
  const terminals: BenchTerminal[] = [];
  try {
    const paths: EchoPath[] = [];
    for (const via of ['ship', 'bridge'] as const) {
      for (const deflate of [false, true]) {
        const name = `echo-${via}${deflate ? '-z' : ''}`;
        if (
          (await post(`${bridge.url}/workspaces`, { ship: 'e2e', repoName: 'e', name, branch: 'main' }, auth)) !== 201
        )
          throw new Error(`create ${name} failed`);
        await post(`${bridge.url}/workspaces/e/${name}/activate`, {}, auth);
        const base = via === 'ship' ? ship.url : bridge.url;
        const terminal = await BenchTerminal.open(
          `${base.replace('http', 'ws')}/workspaces/e/${name}/terminal`,
          COLS,
          ROWS,
          via === 'bridge' ? auth : {},
          { deflate, compressAll: true },
        );
        if (deflate !== terminal.extensions.includes('permessage-deflate'))
          throw new Error(`${name}: deflate offered ${deflate}, extensions "${terminal.extensions}"`);
        terminals.push(terminal);
        await terminal.until(() => prompt.test(terminal.screen.text()));
        terminal.send({ type: 'input', data: 'clear; cat\r' });
        paths.push(
          svcPath(
            `${via}, ${modeLabel(deflate)}${deflate ? ' (every message compressed, as a browser)' : ''}`,
            terminal,
          ),
        );
      }
    }
    attached.write('clear; cat\r');
    paths.unshift(ptyPath('tmux client attached in a pty', attached));
    await sleep(500);
    const times = new Map<EchoPath, number[]>(paths.map((path) => [path, []]));
    for (let block = 0; block < BLOCKS; block++) {
      const order = paths.map((_, i) => paths[(i + block) % paths.length]!);
      for (const path of order) times.get(path)!.push(...(await echoBlock(path)));
    }
    const reference = median(times.get(paths[0]!)!);
    log(
      `echo p50/p99: ${paths.map((path) => `${path.name} ${median(times.get(path)!).toFixed(2)}/${percentile(times.get(path)!, 99).toFixed(2)} ms`).join('; ')}`,
    );
    const rows: BenchRow[] = [
      {
        name: `e2e keystroke echo into cat: tmux client attached in a pty, p50 (p99 ${percentile(times.get(paths[0]!)!, 99).toFixed(2)} ms)`,
        value: reference,
        unit: 'ms',
      },
    ];
    for (const path of paths.slice(1)) {
      const measured = times.get(path)!;
      rows.push({
        name: `e2e keystroke echo, p50 vs the attached tmux client: ${path.name}`,
        value: median(measured),
        reference,
        unit: 'ms',
        target: 2,
      });
      rows.push({ name: `  the same, p99`, value: percentile(measured, 99), unit: 'ms', absoluteLimit: 5 });
    }
    return rows;
  } finally {
    for (const terminal of terminals) await terminal.close();
    await attached.stop();
    try {
      tmux('kill-server');
    } catch {
      // gone already
    }
  }
}

/** The GUI's terminal page on `e/<name>`, signed in, at its prompt. */
async function openPage(browser: Browser, bridge: Child & { token: string }, name: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(guiTerminalProbeScript(bridge.token));
  await page.goto(`${bridge.url}/ui/workspaces/e/${name}/terminal`);
  await page.getByTestId('terminal-status').filter({ hasText: 'Connected.' }).waitFor({ timeout: 30_000 });
  await page.waitForFunction(
    () => /[$#] ?$/m.test(document.querySelector('.xterm-rows')?.textContent?.trimEnd() ?? ''),
    undefined,
    { timeout: 30_000, polling: 50 },
  );
  return page;
}

const readProbe = (page: Page) => page.evaluate('window.__e2e') as Promise<GuiTerminalProbe>;

async function guiRun(page: Page, file: string, marker: string): Promise<number> {
  await page.locator('.xterm-helper-textarea').focus();
  await page.keyboard.type('clear\n');
  await sleep(300);
  await page.keyboard.type(`cat ${file}`);
  await sleep(300);
  await page.evaluate(
    `Object.assign(window.__e2e, { start: '\\\\r', startedAt: null, want: ${JSON.stringify(marker)}, drawnAt: null })`,
  );
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    () => (globalThis as unknown as { __e2e: GuiTerminalProbe }).__e2e.drawnAt !== null,
    undefined,
    { timeout: 120_000, polling: 50 },
  );
  const probe = await readProbe(page);
  return probe.drawnAt! - probe.startedAt!;
}

async function cliRun(cli: PtyProcess, file: string, marker: string): Promise<number> {
  cli.write('clear\r');
  await sleep(300);
  cli.write(`cat ${file}`);
  await sleep(300);
  cli.reset();
  const started = performance.now();
  cli.write('\r');
  return (await cli.until(marker, 120_000)) - started;
}

async function catThroughTheBridge(bridge: Child & { token: string }, root: string): Promise<BenchRow[]> {
  const auth = { authorization: `Bearer ${bridge.token}` };
  for (const name of ['gui', 'cli']) {
    if ((await post(`${bridge.url}/workspaces`, { ship: 'e2e', repoName: 'e', name, branch: 'main' }, auth)) !== 201)
      throw new Error(`create ${name} failed`);
    await post(`${bridge.url}/workspaces/e/${name}/activate`, {}, auth);
  }
  let browser: Browser | null = null;
  let cli: PtyProcess | null = null;
  try {
    browser = await launchChromium();
    const page = await openPage(browser, bridge, 'gui');
    const { init } = await readProbe(page);
    if (!init) throw new Error('the page never sent init');
    log(`the page's terminal: ${init.cols}×${init.rows}`);
    cli = new PtyProcess(`node ${SVC} client --bridge-url ${bridge.url} attach e cli`, init.cols, init.rows, {
      ...process.env,
      SVC_TOKEN: bridge.token,
      TERM: 'xterm-256color',
    });
    await cli.until('bash-', 30_000);
    const gui: number[] = [];
    const attach: number[] = [];
    const rounds = Number(process.env.SVC_BENCH_ROUNDS) || 4;
    for (let round = 0; round < rounds; round++) {
      const marker = `MARK-16-${round}-${Date.now()}`;
      const file = join(root, `out-${round}.txt`);
      await writeFile(file, mixedOutput(16 * 1024 * 1024, marker));
      const runs = round % 2 === 0 ? (['gui', 'cli'] as const) : (['cli', 'gui'] as const);
      for (const run of runs) {
        if (run === 'gui') gui.push(await guiRun(page, file, marker));
        else attach.push(await cliRun(cli, file, marker));
      }
      log(`cat 16 MB round ${round}: GUI ${gui.at(-1)!.toFixed(0)} ms, attach ${attach.at(-1)!.toFixed(0)} ms`);
      await rm(file);
    }
    const probe = await readProbe(page);
    return [
      {
        name: `e2e cat 16 MB through the bridge, ${init.cols}×${init.rows}: GUI in Chromium to its last screen drawn vs \`svc client attach\``,
        value: median(gui),
        reference: median(attach),
        unit: 'ms',
        target: 1.2,
      },
      {
        name: `  frames the page never got (${probe.frames} received, ${probe.resyncs} resyncs asked)`,
        value: probe.gaps,
        unit: 'frames',
        absoluteLimit: 0,
      },
    ];
  } finally {
    await cli?.stop();
    await browser?.close();
  }
}

export async function benchTerminalE2e(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-e2e-'));
  const children: Child[] = [];
  const fleet = join(root, 'fleet');
  try {
    const bridge = await startBridgeProcess(join(root, 'bridge'), await freePort());
    children.push(bridge);
    const auth = { authorization: `Bearer ${bridge.token}` };
    const ship = await startShipProcess(fleet, 'e2e');
    children.push(ship);
    if ((await post(`${bridge.url}/ships`, { url: ship.url }, auth)) !== 201)
      throw new Error('ship registration failed');
    const { url: repoUrl } = makeBenchRemote(root, 8);
    await post(`${bridge.url}/repos`, { name: 'e', url: repoUrl }, auth);
    const rows = await keystrokeEcho(bridge, ship);
    rows.push(...(await catThroughTheBridge(bridge, root)));
    return rows;
  } finally {
    for (const child of children.reverse()) await child.stop();
    endFleetTmux(fleet);
    await rm(root, { recursive: true, force: true });
  }
}
