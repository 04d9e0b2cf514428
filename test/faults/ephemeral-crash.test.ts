// Ephemeral records through bridge crashes (docs/security.md H23 and X3, issue #17), with a real `svc bridge`
// started through npx (killed and restarted on its data directory), a real ship in this process and the
// fake GitHub (its branches in a real bare repository, so the issue branches the bridge creates clone).
// - H23: the bridge SIGKILLed at a random point of each of 20 ephemeral creates (before the ship is called,
//   while it clones, after it answered). Once the ship is back: every workspace on the ship has its record
//   (watching), and no record lacks a workspace: a sweep forgets none, and the table read after a clean stop
//   holds exactly the ship's workspaces, none pending.
// - X3: SIGTERM-then-SIGKILL of the group, 5 times, and SIGKILL, 5 times, with records watching, watching
//   with a pull request, and blocked: `ephemeral` of every workspace identical before and after each restart.
// - A bridge SIGKILLed mid-sweep, while the ship's answer to a guarded delete it already carried out is held:
//   after the restart every existing workspace still has its record, and the next pass forgets exactly the
//   records whose workspaces the interrupted pass deleted.
// - H23's last window: the bridge killed while the ship clones, the clone held until the restarted bridge has
//   taken the ship's sync (which cannot show a clone still running); the workspace that then lands must
//   have its record.
// The ship clones `https://github.example/acme/widget.git` from a local git HTTP server (git http-backend)
// through an `insteadOf` in the ship's HOME, so a test can hold a clone; the fake forge and the ship are
// reached through small HTTP proxies, so a test can slow the one and hold the other's answers.
import { writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../bridge/store/store.js';
import type { EphemeralRecord } from '../../bridge/store/ephemeral-store.js';
import type { FakeGitHub } from '../fakes/github.js';
import { cloneHome, startBackedForge, useHome } from '../helpers/github-clone.js';
import { git, makeRemote } from '../helpers/git-fixtures.js';
import { serveHttpBackend } from '../helpers/git-http-remote.js';
import { bridgeUrlIn, startNpx, type NpxProcess } from '../helpers/npx.js';
import { settles, until } from '../helpers/poll.js';
import { freePort } from '../helpers/ports.js';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';

const FORGE_URL = 'https://github.example/acme/widget.git';
const GITHUB_TOKEN = 'ghp_ephemeral_crash_test_token';
const REPO = 'widget';

// ---------------------------------------------------------------------------------------------------------
// Small servers the tests put between the processes.

/**
 * Serves one bare repository over git's smart HTTP (git http-backend). `holdNextClone(ms)` makes the next
 * clone wait that long at its first request; `nextClone()` resolves when the next clone reaches the server.
 */
class GitHttpServer {
  private holds: number[] = [];
  private held = new Set<() => void>();
  private arrivals: Array<() => void> = [];
  inFlight = 0;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(bare: string): Promise<GitHttpServer> {
    let self!: GitHttpServer;
    const server = createServer((request, response) => void self.serve(bare, request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new GitHttpServer(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/${bare.split('/').pop()}`,
    );
    return self;
  }

  holdNextClone(ms: number): void {
    this.holds.push(ms);
  }

  /** Forgets holds no clone has taken (a create killed before it reached the ship). */
  clearHolds(): void {
    this.holds = [];
  }

  /** Lets every held clone go on now. */
  releaseHolds(): void {
    for (const release of [...this.held]) release();
  }

  nextClone(): Promise<void> {
    return new Promise((resolve) => this.arrivals.push(resolve));
  }

  private async serve(bare: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.inFlight++;
    try {
      const url = new URL(request.url ?? '/', 'http://git.invalid');
      // A clone starts with the ref advertisement: that is where a slow clone waits.
      if (url.pathname.endsWith('/info/refs')) {
        for (const arrived of this.arrivals.splice(0)) arrived();
        const hold = this.holds.shift();
        if (hold) {
          await new Promise<void>((resolve) => {
            const release = () => {
              clearTimeout(timer);
              this.held.delete(release);
              resolve();
            };
            const timer = setTimeout(release, hold);
            this.held.add(release);
          });
        }
      }
      await serveHttpBackend(bare, request, response);
    } finally {
      this.inFlight--;
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * An HTTP proxy to `127.0.0.1:<target>` that can delay every request (`delayMs`) and hold answers the
 * target already gave (`hold` chooses which; `releaseAll` lets them through). WebSocket upgrades are piped.
 */
class HttpProxy {
  delayMs = 0;
  /** Whether to hold the target's `answer` to `request`. */
  hold: (request: IncomingMessage, answer: IncomingMessage) => boolean = () => false;
  /** Answers of the target held back, in arrival order. */
  readonly held: Array<{ method: string; url: string; release: () => void }> = [];
  /** Requests the target has not finished answering (a caller that went away does not stop the target). */
  inFlight = 0;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: number): Promise<HttpProxy> {
    let self!: HttpProxy;
    const server = createServer((request, response) => void self.forward(target, request, response));
    server.on('upgrade', (request: IncomingMessage, socket, head: Buffer) => {
      const upstream = connect(target, '127.0.0.1', () => {
        const lines = [`${request.method} ${request.url} HTTP/1.1`];
        for (let i = 0; i < request.rawHeaders.length; i += 2)
          lines.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`);
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        upstream.write(head);
        socket.pipe(upstream).pipe(socket);
      });
      const end = () => {
        socket.destroy();
        upstream.destroy();
      };
      upstream.on('error', end);
      socket.on('error', end);
      socket.on('close', end);
      upstream.on('close', end);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new HttpProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  private async forward(target: number, request: IncomingMessage, response: ServerResponse): Promise<void> {
    // The latency this proxy injects.
    if (this.delayMs) await sleep(this.delayMs);
    const upstream = httpRequest(
      { host: '127.0.0.1', port: target, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        const release = () => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        };
        if (this.hold(request, answer)) {
          // Read the whole answer first: the target has finished what it was asked to do.
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            this.held.push({
              method: request.method ?? '',
              url: request.url ?? '',
              release: () => {
                response.writeHead(answer.statusCode ?? 502, answer.headers);
                response.end(Buffer.concat(chunks));
              },
            }),
          );
        } else release();
      },
    );
    this.inFlight++;
    upstream.once('close', () => this.inFlight--);
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  }

  releaseAll(): void {
    for (const held of this.held.splice(0)) {
      try {
        held.release();
      } catch {
        // its caller is gone (a killed bridge)
      }
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------------------
// The fleet: the fake forge (behind a proxy), the git server, the ship (behind a proxy), the bridge process.

/** A seeded generator (mulberry32), so a failing run can be replayed with SVC_TEST_SEED. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Ephemeral = {
  issueNumber: number;
  branch: string;
  cleanup: string;
  blockedReason: string | null;
  blockedAt: string | null;
  pullRequest: unknown;
} | null;
type Listed = { repoName: string; name: string; ship: string; ephemeral: Ephemeral };
type Counters = { checked: number; destroyed: number; blocked: number; skipped: number; forgotten: number };

class Fleet {
  bridge: NpxProcess | undefined;
  private constructor(
    readonly root: string,
    readonly fake: FakeGitHub,
    readonly forge: HttpProxy,
    readonly gitServer: GitHttpServer,
    readonly ship: TestShip,
    /** Where the bridge reaches the ship. */
    readonly shipProxy: HttpProxy,
    readonly bridgePort: number,
  ) {}

  static async start(): Promise<Fleet> {
    const root = await makeTempRoot('svc-ephemeral-crash-');
    const remote = makeRemote(root);
    const fake = await startBackedForge(remote.bare, GITHUB_TOKEN);
    const forge = await HttpProxy.start(Number(new URL(fake.url).port));
    const gitServer = await GitHttpServer.start(remote.bare);
    // The ship's git clones the forge URL from the git server: git reads HOME's .gitconfig, and the ship
    // hands HOME to git (the runner takes its environment when the ship starts).
    const home = cloneHome(
      root,
      gitServer.url,
      FORGE_URL,
      'ship-home',
      '[user]\n\tname = svc test\n\temail = test@svc.invalid\n',
    );
    const restoreHome = useHome(home);
    let ship: TestShip;
    try {
      ship = await startTestShip(root, { name: 'eph', fleetDirectory: join(root, 'fleet'), homeDirectory: home });
    } finally {
      restoreHome();
    }
    const shipProxy = await HttpProxy.start(Number(new URL(ship.url).port));
    const fleet = new Fleet(root, fake, forge, gitServer, ship, shipProxy, await freePort());
    await fleet.startBridge();
    expect((await fleet.bridgeCall('POST', '/ships', { url: shipProxy.url })).status).toBe(201);
    expect((await fleet.bridgeCall('POST', '/repos', { name: REPO, url: FORGE_URL, provider: 'github' })).status).toBe(
      201,
    );
    return fleet;
  }

  get bridgeUrl(): string {
    return `http://localhost:${this.bridgePort}`;
  }
  get dataDirectory(): string {
    return join(this.root, 'bridge-data');
  }

  bridgeCall(method: string, route: string, body?: unknown) {
    return call(this.bridgeUrl, method, route, body);
  }

  async startBridge(): Promise<void> {
    this.bridge = startNpx(
      [
        'bridge',
        '--port',
        String(this.bridgePort),
        '--data-directory',
        this.dataDirectory,
        '--insecure-no-auth',
        '--sweep-interval-ms',
        '0',
      ],
      {
        SVC_GITHUB_API_URL: this.forge.url,
        SVC_GITHUB_TOKEN: GITHUB_TOKEN,
        SVC_INSECURE_NO_AUTH: undefined,
        SVC_TOKEN: undefined,
      },
    );
    await this.bridge.waitFor('bridge listening on', 60_000);
    expect(bridgeUrlIn(this.bridge.output())).toContain(String(this.bridgePort));
  }

  /** SIGTERM to the group, then SIGKILL to what is left once npm's leader has gone (a supervisor's stop). */
  async stopBridge(): Promise<void> {
    await this.bridge!.terminateThenKill();
    this.bridge = undefined;
  }

  async killBridge(): Promise<void> {
    this.bridge!.signalGroup('SIGKILL');
    await this.bridge!.exited;
  }

  /** Back after a restart: the ship online again and its sync taken (the roster says online only after it). */
  async shipOnline(): Promise<void> {
    await until(
      async () => {
        const ships = (await this.bridgeCall('GET', '/ships')).body as Array<{ name: string; status: string }>;
        return ships.some((ship) => ship.name === 'eph' && ship.status === 'online');
      },
      'the ship online at the bridge',
      15_000,
    );
  }

  async shipKeys(): Promise<string[]> {
    const listed = (await call(this.ship.url, 'GET', '/workspaces')).body as Array<{ repoName: string; name: string }>;
    return listed.map((w) => `${w.repoName}/${w.name}`).sort();
  }

  async bridgeList(): Promise<Map<string, Listed>> {
    const listed = (await this.bridgeCall('GET', '/workspaces')).body as Listed[];
    return new Map(listed.map((w) => [`${w.repoName}/${w.name}`, w]));
  }

  /** The ephemeral table as stored, read with the bridge stopped (the data-directory lock is then free). */
  async storedRecords(): Promise<EphemeralRecord[]> {
    const store = await openStore({ dataDirectory: this.dataDirectory });
    try {
      return await store.ephemeral.list();
    } finally {
      await store.close();
    }
  }

  /** An issue on the fake and its ephemeral create's body. */
  issueCreate(name: string, title: string) {
    const issue = this.fake.addIssue({ title });
    return { issue, body: { ship: 'eph', repoName: REPO, name, issueNumber: issue.number, ephemeral: true } };
  }

  async stop(): Promise<void> {
    if (this.bridge) {
      this.bridge.signalGroup('SIGKILL');
      await this.bridge.exited;
    }
    this.forge.releaseAll();
    this.shipProxy.releaseAll();
    this.gitServer.releaseHolds();
    await this.ship.stop();
    await Promise.all([this.shipProxy.stop(), this.forge.stop(), this.gitServer.stop(), this.fake.stop()]);
    await removeRoot(this.root);
  }
}

const keyOf = (name: string) => `${REPO}/${name}`;

// ---------------------------------------------------------------------------------------------------------
// One fleet for the file (a bridge's first start, which creates its database, takes the longest): the H23
// creates leave the ephemeral workspaces the X3 and mid-sweep tests then restart and sweep over.

let fleet: Fleet;
beforeAll(async () => {
  fleet = await Fleet.start();
}, 120_000);
afterAll(async () => {
  await fleet?.stop();
});

/** The bridge's view once the restarted bridge has the ship's sync: each listed workspace's `ephemeral`. */
async function ephemeralView(): Promise<Record<string, Ephemeral>> {
  const view: Record<string, Ephemeral> = {};
  for (const [key, listed] of [...(await fleet.bridgeList())].sort(([a], [b]) => (a < b ? -1 : 1)))
    view[key] = listed.ephemeral;
  return view;
}

/** Keys on the ship the bridge shows without a record, and keys the bridge shows that the ship lacks. */
async function orphans(): Promise<{ withoutRecord: string[]; notOnShip: string[] }> {
  const shipKeys = await fleet.shipKeys();
  const listed = await fleet.bridgeList();
  return {
    withoutRecord: shipKeys.filter((key) => !listed.get(key)?.ephemeral),
    notOnShip: [...listed.keys()].filter((key) => !shipKeys.includes(key)),
  };
}

/**
 * Polls until `probe` holds (the reconcile after a sync takes a few store writes), then answers its last value,
 * held or not: the caller's expect on it shows the difference, which a timeout message would not.
 */
async function settle<T>(probe: () => Promise<T>, holds: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  let last: T | undefined;
  const settled = async () => {
    last = await probe();
    return holds(last);
  };
  await settles(until(settled, 'settled', timeoutMs, 100));
  return last ?? probe();
}

const noOrphans = (found: { withoutRecord: string[]; notOnShip: string[] }) =>
  found.withoutRecord.length === 0 && found.notOnShip.length === 0;

describe('ephemeral records through bridge crashes', () => {
  const ROUNDS = 20;
  /** How long a clone is held in the rounds killed during the clone: ended well before the bridge is back. */
  const SHORT_CLONE_HOLD_MS = 400;

  it(`H23: the bridge SIGKILLed at a random point of each of ${ROUNDS} ephemeral creates leaves every ephemeral workspace with its record and no record without its workspace`, async () => {
    const seed = Number(process.env.SVC_TEST_SEED ?? Date.now() % 1_000_000);
    const random = seeded(seed);

    // One create to its answer: how long a create takes here, so that the kills spread over all of it.
    const warm = fleet.issueCreate('warm', 'Warm up');
    const started = Date.now();
    const warmed = await fleet.bridgeCall('POST', '/workspaces', warm.body);
    const createMs = Date.now() - started;
    expect(warmed.status, warmed.text).toBe(201);
    expect(warmed.body.ephemeral).toMatchObject({ issueNumber: warm.issue.number, cleanup: 'watching' });

    const rounds: Array<{ name: string; window: string; delay: number; answer: number | 'killed' }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const name = `crash-${round}`;
      const { body } = fleet.issueCreate(name, `Crash round ${round}`);
      let delay: number;
      let window: string;
      let answer: Promise<number | 'killed'>;
      if (round % 4 === 2) {
        // Killed while the ship clones: the clone is held briefly and ends while the bridge is down.
        window = 'clone';
        fleet.gitServer.holdNextClone(SHORT_CLONE_HOLD_MS);
        const cloning = fleet.gitServer.nextClone();
        answer = fleet.bridgeCall('POST', '/workspaces', body).then(
          (reply) => reply.status,
          () => 'killed' as const,
        );
        await Promise.race([
          cloning,
          // A deadline for the race, not a wait.
          sleep(20_000).then(() => Promise.reject(new Error(`${name}: the clone never reached the git server`))),
        ]);
        delay = Math.round(random() * (SHORT_CLONE_HOLD_MS - 100));
      } else {
        // Anywhere in the create: stratified, round i in the i-th twentieth of 1.3 × its length.
        window = 'random';
        delay = Math.round(((round + random()) / ROUNDS) * createMs * 1.3);
        answer = fleet.bridgeCall('POST', '/workspaces', body).then(
          (reply) => reply.status,
          () => 'killed' as const,
        );
      }
      // The kill point: `delay` into the clone.
      await sleep(delay);
      await fleet.killBridge();
      rounds.push({ name, window, delay, answer: await answer });
      fleet.gitServer.clearHolds();
      await fleet.startBridge();
      await fleet.shipOnline();
    }
    await until(async () => fleet.gitServer.inFlight === 0, 'every clone ended', 10_000);

    const shipKeys = await fleet.shipKeys();
    const summary = rounds.map((r) => ({ ...r, exists: shipKeys.includes(keyOf(r.name)) }));
    const context = `seed ${seed} (SVC_TEST_SEED), create ${createMs} ms, rounds ${JSON.stringify(summary)}`;
    console.log(`H23: ${context}`);

    // Every workspace on the ship has its record, watching, for the issue it was created from, and the
    // bridge lists no other.
    expect(await settle(orphans, noOrphans), context).toEqual({ withoutRecord: [], notOnShip: [] });
    const issueOf = (key: string) =>
      fleet.fake.issues.find(
        (issue) => issue.title === (key === keyOf('warm') ? 'Warm up' : `Crash round ${key.split('-').pop()}`),
      )!.number;
    const view = await ephemeralView();
    for (const key of shipKeys)
      expect(view[key], `${key}: ${context}`).toMatchObject({
        issueNumber: issueOf(key),
        cleanup: 'watching',
        blockedReason: null,
      });

    // No record lacks its workspace: with every issue open, a pass checks every record and forgets none ...
    const swept = await fleet.bridgeCall('POST', '/workspaces/sweep');
    expect(swept.status).toBe(200);
    expect(swept.body as Counters, context).toEqual({
      checked: shipKeys.length,
      destroyed: 0,
      blocked: 0,
      skipped: 0,
      forgotten: 0,
    });
    // ... and the table itself, read after a clean stop, holds a watching row for exactly the ship's
    // workspaces; a row still pending is only that of a create killed before any workspace came of it, kept
    // (and shown nowhere) until the ship could no longer be cloning it (PENDING_CREATE_MS), since a running
    // clone is in no sync.
    await fleet.stopBridge();
    const stored = await fleet.storedRecords();
    const key = (r: { repoName: string; name: string }) => `${r.repoName}/${r.name}`;
    expect(
      stored
        .filter((r) => r.cleanup === 'watching')
        .map(key)
        .sort(),
      context,
    ).toEqual(shipKeys);
    const pending = stored.filter((r) => r.cleanup !== 'watching');
    expect(
      pending.filter((r) => r.cleanup !== 'pending' || shipKeys.includes(key(r))),
      context,
    ).toEqual([]);
    const killedAbsent = summary.filter((r) => !r.exists && r.answer === 'killed').map((r) => keyOf(r.name));
    for (const row of pending) expect(killedAbsent, `${key(row)} pending: ${context}`).toContain(key(row));
    await fleet.startBridge();
    await fleet.shipOnline();

    // The kills covered the windows: creates that never reached the ship, clones that outlived their answer.
    expect(
      summary.some((r) => !r.exists),
      context,
    ).toBe(true);
    expect(
      summary.some((r) => r.exists && r.answer === 'killed'),
      context,
    ).toBe(true);
  }, 200_000);

  it('X3: SIGTERM-then-SIGKILL and SIGKILL, 5 times each, leave every ephemeral record as it was and no orphan', async () => {
    // Records in each state: watching, watching with an open pull request, and blocked (the issue closed
    // while the clone holds a commit no remote has, so the guarded delete is refused).
    const records = Object.entries(await ephemeralView()).filter(([, e]) => e?.cleanup === 'watching');
    expect(records.length).toBeGreaterThanOrEqual(4);
    const [withPull, blocked] = records.slice(-2);
    fleet.fake.addPull({ title: 'Work for the issue', head: withPull![1]!.branch, state: 'open' });
    const blockedDir = join(fleet.ship.root, 'fleet', ...blocked![0].split('/'));
    writeFileSync(join(blockedDir, 'unpushed.txt'), 'work no remote has\n');
    git(blockedDir, 'add', '.');
    git(blockedDir, 'commit', '--quiet', '-m', 'unpushed work');
    fleet.fake.issues.find((issue) => issue.number === blocked![1]!.issueNumber)!.state = 'closed';
    const first = await fleet.bridgeCall('POST', '/workspaces/sweep');
    expect(first.body as Counters).toEqual({
      checked: records.length,
      destroyed: 0,
      blocked: 1,
      skipped: 0,
      forgotten: 0,
    });

    const snapshot = async () => ({
      ships: (await fleet.bridgeCall('GET', '/ships')).body,
      repos: (await fleet.bridgeCall('GET', '/repos')).body,
      ephemeral: await ephemeralView(),
    });
    const before = await snapshot();
    expect(before.ephemeral[withPull![0]]?.pullRequest).toMatchObject({ state: 'open' });
    expect(before.ephemeral[blocked![0]]).toMatchObject({
      cleanup: 'blocked',
      blockedReason: expect.any(String),
      blockedAt: expect.any(String),
    });
    expect(await orphans()).toEqual({ withoutRecord: [], notOnShip: [] });

    for (const [round, stop] of [
      ...Array.from(
        { length: 5 },
        () => ['SIGTERM, then SIGKILL to the group', () => fleet.bridge!.terminateThenKill()] as const,
      ),
      ...Array.from({ length: 5 }, () => ['SIGKILL to the group', () => fleet.killBridge()] as const),
    ].entries()) {
      await stop[1]();
      await fleet.startBridge();
      await fleet.shipOnline();
      // (Deep equality: a pull request read back from the store's jsonb has its keys in another order.)
      const after = await settle(snapshot, (s) => isDeepStrictEqual(s, before));
      expect(after, `round ${round + 1} (${stop[0]})`).toEqual(before);
      expect(await orphans(), `round ${round + 1}`).toEqual({ withoutRecord: [], notOnShip: [] });
    }
    // The blocked record is judged again and stays blocked with its first refusal's time; none is forgotten.
    const again = await fleet.bridgeCall('POST', '/workspaces/sweep');
    expect(again.body as Counters).toEqual({
      checked: records.length,
      destroyed: 0,
      blocked: 1,
      skipped: 0,
      forgotten: 0,
    });
    expect(await ephemeralView()).toEqual(before.ephemeral);
  }, 120_000);

  it('a bridge SIGKILLed mid-sweep: records of existing workspaces all survive, and a workspace the pass deleted whose record outlived it is forgotten next pass', async () => {
    const start = await ephemeralView();
    const watching = Object.entries(start).filter(([, e]) => e?.cleanup === 'watching' && e.pullRequest === null);
    // Every other watched workspace's issue closed: those are destroyed; the rest stay watched.
    const closing = watching.filter((_, i) => i % 2 === 0).map(([key]) => key);
    expect(closing.length).toBeGreaterThanOrEqual(3);
    for (const key of closing)
      fleet.fake.issues.find((issue) => issue.number === start[key]!.issueNumber)!.state = 'closed';

    // A slow forge, and the ship's answers to the pass's deletes held from the second carried out on: the
    // ship has deleted those workspaces, the bridge has not heard it yet.
    fleet.forge.delayMs = 150;
    let deletes = 0;
    fleet.shipProxy.hold = (request, answer) =>
      request.method === 'DELETE' && answer.statusCode === 200 && ++deletes > 1;
    const pass = fleet.bridgeCall('POST', '/workspaces/sweep').catch(() => null);
    await until(async () => fleet.shipProxy.held.length >= 2, 'two deletes carried out and their answers held', 20_000);
    await fleet.killBridge();
    expect(await pass).toBeNull();
    fleet.shipProxy.hold = () => false;
    fleet.shipProxy.releaseAll();
    fleet.forge.delayMs = 0;

    // What the kill left: deletes the ship carried out (some of them answered and dropped), records. A
    // delete the killed bridge sent may still be running on the ship: wait until the ship has answered all.
    await until(
      async () => fleet.shipProxy.inFlight === 0,
      'the ship answered every request of the killed bridge',
      20_000,
    );
    const shipKeys = await fleet.shipKeys();
    const stored = (await fleet.storedRecords()).map((r) => `${r.repoName}/${r.name}`);
    const outlived = stored.filter((key) => !shipKeys.includes(key));
    const destroyedClean = closing.filter((key) => !shipKeys.includes(key) && !stored.includes(key));
    const undecided = closing.filter((key) => shipKeys.includes(key));
    const context = `closing ${JSON.stringify(closing)}; records outliving their workspace ${JSON.stringify(outlived)}; destroyed and dropped ${JSON.stringify(destroyedClean)}; not yet deleted ${JSON.stringify(undecided)}`;
    console.log(`mid-sweep kill: ${context}`);
    expect(outlived.length, context).toBeGreaterThanOrEqual(2);
    // No record of an existing workspace was lost.
    expect(
      shipKeys.filter((key) => !stored.includes(key)),
      context,
    ).toEqual([]);

    await fleet.startBridge();
    await fleet.shipOnline();
    expect(await settle(orphans, noOrphans), context).toEqual({ withoutRecord: [], notOnShip: [] });
    const next = await fleet.bridgeCall('POST', '/workspaces/sweep');
    expect(next.body as Counters, context).toEqual({
      checked: shipKeys.length,
      destroyed: undecided.length,
      blocked: 1,
      skipped: 0,
      forgotten: outlived.length,
    });

    // Afterwards: the ship holds exactly the workspaces whose issues are open (and the blocked one), each with
    // its record, and the table nothing else.
    const remaining = Object.keys(start).filter((key) => !closing.includes(key));
    expect(await fleet.shipKeys()).toEqual(remaining);
    expect(await settle(orphans, noOrphans)).toEqual({ withoutRecord: [], notOnShip: [] });
    await fleet.stopBridge();
    expect((await fleet.storedRecords()).map((r) => `${r.repoName}/${r.name}`).sort()).toEqual(remaining);
    await fleet.startBridge();
    await fleet.shipOnline();
  }, 90_000);

  it('H23: a clone that outlasts the bridge restart still ends with its record (the ship still cloning at its first sync)', async () => {
    // The bridge is killed while the ship clones, and the clone is held until after the restarted bridge has
    // taken the ship's sync: the intent row must not be decided by a sync that cannot see a running clone.
    const name = 'late';
    const { body } = fleet.issueCreate(name, 'Late clone');
    fleet.gitServer.holdNextClone(60_000);
    const cloning = fleet.gitServer.nextClone();
    const answer = fleet.bridgeCall('POST', '/workspaces', body).catch(() => null);
    await Promise.race([
      cloning,
      answer.then((reply) =>
        Promise.reject(new Error(`${name}: answered ${reply?.status} ${reply?.text} before any clone`)),
      ),
    ]);
    // The kill point: the clone held mid-transfer, the create recorded.
    await sleep(200);
    await fleet.killBridge();
    await answer;
    await fleet.startBridge();
    await fleet.shipOnline();
    // The sync is taken; now the clone goes on and lands.
    fleet.gitServer.releaseHolds();
    await until(async () => (await fleet.shipKeys()).includes(keyOf(name)), `${name} on the ship`, 10_000);
    const listed = await settle(
      fleet.bridgeList.bind(fleet),
      (list) => Boolean(list.get(keyOf(name))?.ephemeral),
      3_000,
    );
    expect(
      listed.get(keyOf(name))?.ephemeral ?? null,
      `${keyOf(name)} is on the ship without a record: nobody will sweep it`,
    ).toMatchObject({ cleanup: 'watching' });
    expect(await orphans()).toEqual({ withoutRecord: [], notOnShip: [] });
  }, 60_000);
});
