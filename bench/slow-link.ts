// A slow neighbour (docs/security.md X6): one ship behind a link capped at 64 KB/s streams a terminal through
// the bridge while routed calls go to a second, healthy ship. The healthy ship's routed GET, sequential, is
// timed with the neighbour streaming and, interleaved, with the neighbour's link uncapped and idle. The fault
// proxy runs in this process (test/helpers/fault-proxy.ts); the bridge and ships are `svc` processes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultProxy } from '../test/helpers/fault-proxy.js';
import { post } from './lib/post.js';
import { makeBenchRemote } from './lib/fixtures.js';
import { median, percentile, sequential } from './lib/load.js';
import { freePort } from './lib/ports.js';
import { endFleetTmux, startBridgeProcess, startShipProcess, type Child } from './lib/processes.js';
import { BenchTerminal } from './lib/terminal-client.js';
import type { BenchRow } from './report.js';

const ROUNDS = Number(process.env.SVC_BENCH_ROUNDS || 4);
const CALLS = 200;
const CAP = 64 * 1024;
const prompt = /[$#] ?$/m;

/** The healthy ship's calls while the neighbour's terminal prints `seq` through the capped link. */
async function beside(streamUrl: string, callUrl: string, auth: Record<string, string>, round: number) {
  const terminal = await BenchTerminal.open(streamUrl, 120, 40, auth, { deflate: false });
  try {
    await terminal.until(() => prompt.test(terminal.screen.text()), 30_000);
    const end = `end-of-round-${round}`;
    terminal.send({ type: 'input', data: `clear; seq 1 40000; echo ${end}\r` });
    const framesBefore = terminal.frames;
    const times = await sequential(callUrl, CALLS, auth);
    const streamed = terminal.frames - framesBefore;
    await terminal.untilDrawn(end, 120_000);
    return { times, framesDuringCalls: streamed };
  } finally {
    await terminal.close();
  }
}

export async function benchSlowLink(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-slow-link-'));
  const children: Child[] = [];
  const fleets = [join(root, 'fleet-far'), join(root, 'fleet-near')];
  let proxy: FaultProxy | null = null;
  try {
    const bridge = await startBridgeProcess(join(root, 'bridge'), await freePort());
    children.push(bridge);
    const auth = { authorization: `Bearer ${bridge.token}` };
    const far = await startShipProcess(fleets[0]!, 'far');
    const near = await startShipProcess(fleets[1]!, 'near');
    children.push(far, near);
    proxy = await FaultProxy.start(Number(new URL(far.url).port));
    for (const url of [proxy.url, near.url])
      if ((await post(`${bridge.url}/ships`, { url }, auth)) !== 201) throw new Error(`registering ${url} failed`);
    const { url: repoUrl } = makeBenchRemote(root, 8);
    await post(`${bridge.url}/repos`, { name: 'e', url: repoUrl }, auth);
    for (const [ship, name] of [
      ['far', 'stream'],
      ['near', 'calm'],
    ] as const)
      if ((await post(`${bridge.url}/workspaces`, { ship, repoName: 'e', name, branch: 'main' }, auth)) !== 201)
        throw new Error(`creating ${name} failed`);
    await post(`${bridge.url}/workspaces/e/stream/activate`, {}, auth);
    const streamUrl = `${bridge.url.replace('http', 'ws')}/workspaces/e/stream/terminal`;
    const callUrl = `${bridge.url}/workspaces/e/calm`;

    const quiet: number[] = [];
    const loaded: number[] = [];
    let frames = 0;
    await sequential(callUrl, 50, auth); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      proxy.heal();
      quiet.push(...(await sequential(callUrl, CALLS, auth)));
      proxy.bytesPerSecond = CAP;
      const { times, framesDuringCalls } = await beside(streamUrl, callUrl, auth, round);
      loaded.push(...times);
      frames += framesDuringCalls;
    }
    proxy.heal();
    if (frames < ROUNDS) throw new Error(`the neighbour's terminal barely streamed (${frames} frames)`);
    return [
      {
        name: `routed GET to a healthy ship, p99, while another ship streams a terminal over a 64 KB/s link (vs that link idle; ${frames} frames streamed during the calls)`,
        value: percentile(loaded, 99),
        reference: percentile(quiet, 99),
        unit: 'ms',
        absoluteLimit: 50,
      },
      {
        name: '  the same, p50',
        value: median(loaded),
        reference: median(quiet),
        unit: 'ms',
      },
    ];
  } finally {
    await proxy?.close();
    for (const child of children.reverse()) await child.stop();
    for (const fleet of fleets) endFleetTmux(fleet);
    await rm(root, { recursive: true, force: true });
  }
}
