// The GUI at fleet size (issue #28), `npm run bench -- gui`: a `svc bridge` process (authentication on, as a
// user starts it) fronting 5 fake ships × 200 workspaces (bench/lib/fake-ship.ts: the real wire protocol),
// and Debian's Chromium (bench/lib/chromium.ts) loading /ui/ with the bench admin's token in local storage.
//
// Rows, each against the issue's bar:
//   - the first load of /ui/ (the inbox) in a fresh browser: the JavaScript it fetches before any terminal or
//     diff is opened, each file's body gzipped here (the bridge sends it uncompressed) and summed (≤ 300 KB,
//     1 KB = 1,000 bytes);
//   - first render after the `sync`, on the inbox (the fake fleet's agents that ask: 45) and on the list
//     (1,000 rows): from the page's `/events` socket's first message (the sync; a WebSocket wrapper
//     installed before the page's scripts records `performance.now()` before the app's own listener runs)
//     to the first animation frame after the rendered result is in the DOM (a MutationObserver watching for
//     it requests the frame); each page loaded LOADS times, each in a new browser context (≤ 200 ms);
//   - 100 agent-status changes a second for 10 s spread over the 1,000 workspaces (the fake ships send
//     `workspace.agent_status_changed`), on the list and on the inbox: the longest gap between animation
//     frames and the longest long task (PerformanceObserver `longtask`) in the page meanwhile (≤ 50 ms each).
//     A workspace that asks keeps asking (a new question); the others move among planning, building and
//     verifying, so the inbox keeps its 45 entries while the list changes on every event.
// SVC_BENCH_VERBOSE=1 prints each load.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import type { AgentState } from '../protocol/index.js';
import { launchChromium } from './lib/chromium.js';
import { startFakeFleet, workspacesOf, type FleetHandle } from './lib/fake-ship.js';
import { median } from './lib/load.js';
import { freePort } from './lib/ports.js';
import { startBridgeProcess } from './lib/processes.js';
import type { BenchRow } from './report.js';

const SHIPS = 5;
const WORKSPACES_PER_SHIP = 200;
const TOTAL = SHIPS * WORKSPACES_PER_SHIP;
/** First-render loads per page, each in a new browser context. */
const LOADS = 5;
const EVENTS_PER_SECOND = 100;
const LOAD_SECONDS = 10;
const PREFIX = 'gui';
const WORKING: readonly AgentState[] = ['planning', 'building', 'verifying'];
const verbose = process.env.SVC_BENCH_VERBOSE === '1';
const log = (line: string) => verbose && process.stderr.write(`gui: ${line}\n`);

/** What the pages render once the `sync` is applied. */
const shipNames = Array.from({ length: SHIPS }, (_, i) => `${PREFIX}-${String(i).padStart(3, '0')}`);
const fleetWorkspaces = shipNames.map((ship) => workspacesOf(ship, WORKSPACES_PER_SHIP));
const ASKING = fleetWorkspaces.flat().filter((workspace) => workspace.agent?.state === 'awaiting').length;

interface View {
  name: string;
  path: string;
  /** Rendered when this many elements match. */
  selector: string;
  count: number;
}
const INBOX: View = { name: 'inbox', path: '/ui/', selector: 'ol.inbox > li', count: ASKING };
// The list renders the rows in view (TanStack Virtual): rendered means the table accounts for all of them.
const LIST: View = {
  name: 'list',
  path: '/ui/workspaces',
  selector: `table.workspaces[data-rows="${TOTAL}"] tbody tr[data-key]`,
  count: -1,
};

/**
 * Installed before the page's scripts (plain JavaScript: bench/ is compiled without the DOM's types). The
 * token in local storage (the GUI's session, web/src/api/token-store.ts); WebSocket wrapped so that the
 * `/events` socket's first message time is taken before the app's listener runs, and its messages counted;
 * a MutationObserver that, once `selector` matches `count` elements, takes the next animation frame's time.
 */
function probeScript(token: string, view: View): string {
  return `(() => {
  const probe = { syncAt: null, firstIsSync: null, messages: 0, seenAt: null, renderedAt: null };
  window.__guiBench = probe;
  localStorage.setItem('svc.bridge.token', ${JSON.stringify(token)});
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      if (!new URL(String(url), location.href).pathname.endsWith('/events')) return;
      this.addEventListener('message', (message) => {
        if (probe.syncAt === null) {
          probe.syncAt = performance.now();
          probe.firstIsSync = typeof message.data === 'string' && message.data.slice(0, 200).includes('"type":"sync"');
        }
        probe.messages++;
      });
    }
  };
  const observer = new MutationObserver(() => {
    const found = document.querySelectorAll(${JSON.stringify(view.selector)}).length;
    if (probe.syncAt === null || (${view.count} < 0 ? found === 0 : found !== ${view.count})) return;
    observer.disconnect();
    probe.seenAt = performance.now();
    requestAnimationFrame(() => { probe.renderedAt = performance.now(); });
  });
  observer.observe(document, { childList: true, subtree: true });
})();`;
}

interface Probe {
  syncAt: number | null;
  firstIsSync: boolean | null;
  messages: number;
  seenAt: number | null;
  renderedAt: number | null;
}
const readProbe = (page: Page) => page.evaluate('window.__guiBench') as Promise<Probe>;

interface Loaded {
  page: Page;
  close(): Promise<void>;
  /** From the sync's arrival to the frame after it is rendered. */
  renderMs: number;
  /** Every JavaScript response of the load: raw and gzipped bytes. */
  js: Array<{ url: string; raw: number; gzip: number }>;
}

/** Opens `view` in a new browser context and waits until the sync is rendered (and 1 s more for lazy chunks). */
async function load(browser: Browser, origin: string, token: string, view: View): Promise<Loaded> {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.addInitScript(probeScript(token, view));
  const js: Array<Promise<{ url: string; raw: number; gzip: number }>> = [];
  page.on('response', (response) => {
    const type = response.headers()['content-type'] ?? '';
    if (!/javascript/.test(type) && !new URL(response.url()).pathname.endsWith('.js')) return;
    js.push(response.body().then((body) => ({ url: response.url(), raw: body.length, gzip: gzipSync(body).length })));
  });
  await page.goto(`${origin}${view.path}`);
  try {
    // A function, not a string: the bridge's CSP forbids the page evaluating strings.
    await page.waitForFunction(
      () => (globalThis as unknown as { __guiBench: Probe }).__guiBench.renderedAt !== null,
      undefined,
      { timeout: 60_000, polling: 50 },
    );
  } catch (error) {
    const found = await page
      .evaluate(`document.querySelectorAll(${JSON.stringify(view.selector)}).length`)
      .catch(() => '?');
    throw new Error(
      `${view.name}: ${view.count} × "${view.selector}" never rendered (${String(found)} found; page errors: ${errors.join('; ') || 'none'}): ${(error as Error).message}`,
    );
  }
  const probe = await readProbe(page);
  if (!probe.firstIsSync) throw new Error(`${view.name}: the first /events message was not the sync`);
  await sleep(1000);
  log(
    `${view.name}: sync rendered after ${(probe.renderedAt! - probe.syncAt!).toFixed(1)} ms (in the DOM after ${(probe.seenAt! - probe.syncAt!).toFixed(1)} ms)`,
  );
  return { page, close: () => context.close(), renderMs: probe.renderedAt! - probe.syncAt!, js: await Promise.all(js) };
}

interface UnderLoad {
  sent: number;
  /** /events messages the page received while the events were sent (and 1 s after). */
  received: number;
  frames: number;
  longestFrameMs: number;
  longTasks: number;
  longestTaskMs: number;
}

/** EVENTS_PER_SECOND agent-status changes for LOAD_SECONDS, spread over every ship and workspace, while `page` records its frames and long tasks. */
async function underLoad(page: Page, fakes: FleetHandle, round: number): Promise<UnderLoad> {
  await sleep(2000);
  const before = (await readProbe(page)).messages;
  await page.evaluate(`(() => {
    const start = performance.now();
    const record = { start, frames: 0, longestFrame: 0, longTasks: [], stopped: false };
    window.__guiLoad = record;
    let last = null;
    const tick = (time) => {
      if (last !== null) record.longestFrame = Math.max(record.longestFrame, time - last);
      last = time;
      record.frames++;
      if (!record.stopped) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.startTime >= start) record.longTasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  })()`);
  const total = EVENTS_PER_SECOND * LOAD_SECONDS;
  const interval = 1000 / EVENTS_PER_SECOND;
  const started = performance.now();
  const sends: Promise<bigint>[] = [];
  for (let k = 0; k < total; k++) {
    const wait = started + k * interval - performance.now();
    if (wait > 1) await sleep(wait);
    // Consecutive events on different ships and workspaces (never the ship's generation marker, index 0).
    const ship = k % SHIPS;
    const index = 1 + ((Math.floor(k / SHIPS) * 7 + round * 13) % (WORKSPACES_PER_SHIP - 1));
    const asking = fleetWorkspaces[ship]![index]!.agent?.state === 'awaiting';
    const state: AgentState = asking ? 'awaiting' : WORKING[k % WORKING.length]!;
    sends.push(fakes.emit(ship, index, asking ? `question ${round}-${k}: go on?` : `step ${round}-${k}`, state));
  }
  await Promise.all(sends);
  const sentMs = performance.now() - started;
  await sleep(1000);
  const record = (await page.evaluate(`(() => { const r = window.__guiLoad; r.stopped = true; return r; })()`)) as {
    frames: number;
    longestFrame: number;
    longTasks: number[];
  };
  const received = (await readProbe(page)).messages - before;
  log(
    `${total} events sent in ${sentMs.toFixed(0)} ms; ${received} received; ${record.frames} frames, longest ${record.longestFrame.toFixed(1)} ms; long tasks ${record.longTasks.map((d) => d.toFixed(0)).join(', ') || 'none'}`,
  );
  return {
    sent: total,
    received,
    frames: record.frames,
    longestFrameMs: record.longestFrame,
    longTasks: record.longTasks.length,
    longestTaskMs: Math.max(0, ...record.longTasks),
  };
}

/** Waits until the bridge has every fake ship online (their `sync` applied). */
async function shipsOnline(url: string, auth: Record<string, string>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const ships = (await (await fetch(`${url}/ships`, { headers: auth })).json()) as Array<{
      name: string;
      status: string;
    }>;
    if (shipNames.every((name) => ships.some((ship) => ship.name === name && ship.status === 'online'))) return;
    await sleep(100);
  }
  throw new Error('the fake ships never came online');
}

export async function benchGui(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-gui-'));
  const children: Array<{ stop(): Promise<void> }> = [];
  let browser: Browser | null = null;
  try {
    const bridge = await startBridgeProcess(join(root, 'bridge'), await freePort());
    children.push(bridge);
    const auth = { authorization: `Bearer ${bridge.token}` };
    const fakes = await startFakeFleet(SHIPS, WORKSPACES_PER_SHIP, PREFIX);
    children.push(fakes);
    for (const ship of fakes.ships) {
      const answer = await fetch(`${bridge.url}/ships`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ url: ship.url }),
      });
      if (answer.status !== 201) throw new Error(`registering ${ship.name}: ${answer.status} ${await answer.text()}`);
    }
    await shipsOnline(bridge.url, auth);
    browser = await launchChromium();

    // The first load in a fresh browser: its JavaScript, and the inbox's first render (counted with the others).
    const first = await load(browser, bridge.url, bridge.token, INBOX);
    const js = first.js;
    log(
      `first load: ${js.map((file) => `${new URL(file.url).pathname} ${file.raw} B, ${file.gzip} B gzipped`).join('; ')}`,
    );
    const renders: Record<string, number[]> = { inbox: [first.renderMs], list: [] };
    await first.close();
    for (let i = 0; i < LOADS; i++) {
      for (const view of i === 0 ? [LIST] : [INBOX, LIST]) {
        const loaded = await load(browser, bridge.url, bridge.token, view);
        renders[view.name]!.push(loaded.renderMs);
        await loaded.close();
      }
    }

    const loads: Record<string, UnderLoad> = {};
    for (const [round, view] of [LIST, INBOX].entries()) {
      const loaded = await load(browser, bridge.url, bridge.token, view);
      loads[view.name] = await underLoad(loaded.page, fakes, round);
      await loaded.close();
    }

    const gzipKB = js.reduce((sum, file) => sum + file.gzip, 0) / 1000;
    const rawKB = js.reduce((sum, file) => sum + file.raw, 0) / 1000;
    const rows: BenchRow[] = [
      {
        name: `gui: first load of /ui/, JavaScript gzipped (${js.length} files, ${rawKB.toFixed(0)} KB uncompressed)`,
        value: gzipKB,
        unit: 'KB',
        absoluteLimit: 300,
      },
    ];
    for (const view of [INBOX, LIST]) {
      const times = renders[view.name]!;
      const label = view === INBOX ? `inbox (${ASKING} asking)` : `list (${TOTAL} rows)`;
      rows.push(
        {
          name: `gui ${SHIPS} ships × ${WORKSPACES_PER_SHIP}: ${label}, sync to its first rendered frame, median of ${times.length}`,
          value: median(times),
          unit: 'ms',
          absoluteLimit: 200,
        },
        { name: `  the same, slowest of ${times.length}`, value: Math.max(...times), unit: 'ms', absoluteLimit: 200 },
      );
    }
    for (const view of [LIST, INBOX]) {
      const figures = loads[view.name]!;
      rows.push(
        {
          name: `gui ${view.name} under ${EVENTS_PER_SECOND} status changes/s for ${LOAD_SECONDS} s (${figures.received} of ${figures.sent} received, ${figures.frames} frames): longest frame`,
          value: figures.longestFrameMs,
          unit: 'ms',
          absoluteLimit: 50,
        },
        {
          name: `  the same, longest long task (${figures.longTasks} long tasks)`,
          value: figures.longestTaskMs,
          unit: 'ms',
          absoluteLimit: 50,
        },
      );
    }
    return rows;
  } finally {
    await browser?.close();
    for (const child of children.reverse()) await child.stop();
    await rm(root, { recursive: true, force: true });
  }
}
